package io.sluice.storage.segment;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background threads shared by many logs: flusher threads ({@code sluice-storage-<name>-flusher-<n>})
 * run fsyncs that writers request and the {@code interval} timers; one maintenance thread
 * ({@code sluice-storage-<name>-cleaner}) enforces retention and runs compaction for every registered
 * log every {@code maintenanceIntervalMs}. A failing task is logged with its log's name and never
 * stops the threads.
 */
public final class LogScheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogScheduler.class);

    private final String name;
    private final ScheduledThreadPoolExecutor flushers;
    private final ScheduledThreadPoolExecutor cleaner;
    private final Set<Log> logs = ConcurrentHashMap.newKeySet();
    private final ScheduledFuture<?> maintenance;

    /** Two flusher threads and a maintenance pass every 30 seconds. */
    public LogScheduler(String name) {
        this(name, 2, 30_000);
    }

    public LogScheduler(String name, int flushThreads, long maintenanceIntervalMs) {
        if (flushThreads < 1) {
            throw new IllegalArgumentException("flushThreads must be at least 1, got " + flushThreads);
        }
        if (maintenanceIntervalMs < 1) {
            throw new IllegalArgumentException("maintenanceIntervalMs must be at least 1, got " + maintenanceIntervalMs);
        }
        this.name = name;
        this.flushers = new ScheduledThreadPoolExecutor(flushThreads, threads("sluice-storage-" + name + "-flusher-"));
        this.cleaner = new ScheduledThreadPoolExecutor(1, threads("sluice-storage-" + name + "-cleaner"));
        this.flushers.setRemoveOnCancelPolicy(true);
        this.maintenance = cleaner.scheduleWithFixedDelay(this::maintain, maintenanceIntervalMs, maintenanceIntervalMs,
                TimeUnit.MILLISECONDS);
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            String threadName = prefix.endsWith("-") ? prefix + count.incrementAndGet() : prefix;
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Runs {@code task} on a flusher thread (the log catches and reports its own failures). */
    void flushSoon(Runnable task) {
        flushers.execute(task);
    }

    /** Runs {@code task} on a flusher thread every {@code periodMs}; cancel the returned future to stop. */
    ScheduledFuture<?> flushEvery(String log, long periodMs, Runnable task) {
        return flushers.scheduleAtFixedRate(guarded(log, task), periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    void register(Log log) {
        logs.add(log);
    }

    void unregister(Log log) {
        logs.remove(log);
    }

    /** Retention then compaction for every registered log; also callable to run a pass now (tests, admin). */
    public void maintain() {
        long now = System.currentTimeMillis();
        for (Log log : logs) {
            guarded(log.name(), () -> {
                log.enforceRetention(now);
                log.maybeCompact(now);
            }).run();
        }
    }

    private static Runnable guarded(String log, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.error("Background task of log '{}' failed", log, e);
            }
        };
    }

    @Override
    public void close() {
        maintenance.cancel(false);
        cleaner.shutdown();
        flushers.shutdown();
        try {
            if (!cleaner.awaitTermination(30, TimeUnit.SECONDS) || !flushers.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("Storage scheduler '{}' did not stop within 30 s", name);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "LogScheduler[" + name + ", " + logs.size() + " logs]";
    }
}
