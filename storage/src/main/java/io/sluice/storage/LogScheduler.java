package io.sluice.storage;

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
 * run the fsyncs that writers request and the {@code interval} timers; one cleaner thread
 * ({@code sluice-storage-<name>-cleaner}) runs every registered log's maintenance (retention,
 * compaction) every {@code maintenanceIntervalMs}. A failing task is logged with its log's name and
 * never stops the threads.
 *
 * <p>Callers create one, hand it to {@link Log#open} or {@link StorageAdapter#open(java.nio.file.Path,
 * LogScheduler)}, and close it after those logs. The storage engines use the rest: {@link #flushSoon},
 * {@link #flushEvery}, {@link #register} and {@link #unregister}.
 */
public final class LogScheduler implements AutoCloseable {

    /** A log the cleaner thread maintains; it guards its own state, and a pass on a closed log does nothing. */
    public interface Maintained {
        /** The log's name, for the message when a pass fails. */
        String name();

        /** One retention and compaction pass at wall-clock time {@code nowMs}. */
        void maintain(long nowMs);
    }

    private static final Logger LOG = LoggerFactory.getLogger(LogScheduler.class);

    private final String name;
    private final ScheduledThreadPoolExecutor flushers;
    private final ScheduledThreadPoolExecutor cleaner;
    private final Set<Maintained> logs = ConcurrentHashMap.newKeySet();
    private final ScheduledFuture<?> maintenance;

    /** Two flusher threads and a maintenance pass every 30 seconds. */
    public LogScheduler(String name) {
        this(name, 2, 30_000);
    }

    /** {@code flushThreads} flusher threads and a maintenance pass every {@code maintenanceIntervalMs}. */
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

    /**
     * Runs {@code task} on a flusher thread (the log catches and reports its own failures).
     *
     * @throws java.util.concurrent.RejectedExecutionException once the scheduler is closed
     */
    public void flushSoon(Runnable task) {
        flushers.execute(task);
    }

    /** Runs {@code task} on a flusher thread every {@code periodMs}; cancel the returned future to stop. */
    public ScheduledFuture<?> flushEvery(String log, long periodMs, Runnable task) {
        return flushers.scheduleAtFixedRate(guarded(log, task), periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /** Adds {@code log} to every maintenance pass from now on. */
    public void register(Maintained log) {
        logs.add(log);
    }

    /** Leaves {@code log} out of later passes; a pass already running on it is the log's to wait for. */
    public void unregister(Maintained log) {
        logs.remove(log);
    }

    /** One maintenance pass over every registered log; also callable to run a pass now (tests, admin). */
    public void maintain() {
        long now = System.currentTimeMillis();
        for (Maintained log : logs) {
            guarded(log.name(), () -> log.maintain(now)).run();
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
