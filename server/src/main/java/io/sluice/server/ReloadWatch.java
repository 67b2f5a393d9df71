package io.sluice.server;

import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Reloads the password file, the ACL file and the TLS certificates without a restart: when one
 * of a target's files changes (polled: modification time, size and inode, which also catches a
 * file replaced by rename, as editors and certificate tools do), and on SIGHUP for all targets.
 * A change is acted on once it has held still for one poll, so a file caught half-written is
 * not read. A reload that fails keeps what was loaded before, is counted
 * ({@code FILE_RELOADS_FAILED}) and logged with the exception (which names the file and line) and its causes.
 *
 * <p>Polling and reloading run on the broker's timer thread, one reload at a time.
 */
final class ReloadWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadWatch.class);

    /** Reads a target's files again; throws, naming the file, if they cannot be used. */
    interface Reload {
        void run() throws Exception;
    }

    /** What a file looked like at one poll. */
    private record Stamp(long modifiedNanos, long size, Object fileKey) {
        static final Stamp MISSING = new Stamp(-1, -1, null);

        static Stamp of(Path file) {
            try {
                BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
                return new Stamp(a.lastModifiedTime().to(TimeUnit.NANOSECONDS), a.size(), a.fileKey());
            } catch (NoSuchFileException e) {
                return MISSING;
            } catch (IOException e) {
                return new Stamp(-2, -2, e.getClass());
            }
        }
    }

    /** One reload target and the state of its files as loaded and as last seen. */
    private static final class Target {
        final String name;
        final List<Path> files;
        final Reload reload;
        List<Stamp> loaded;
        List<Stamp> seen;

        Target(String name, List<Path> files, Reload reload) {
            this.name = name;
            this.files = List.copyOf(files);
            this.reload = reload;
            this.loaded = stamps();
            this.seen = loaded;
        }

        List<Stamp> stamps() {
            List<Stamp> stamps = new ArrayList<>(files.size());
            for (Path file : files) {
                stamps.add(Stamp.of(file));
            }
            return stamps;
        }
    }

    private final BrokerMetrics metrics;
    private final ScheduledExecutorService timer;
    private final long pollMillis;
    private final List<Target> targets = new CopyOnWriteArrayList<>();
    private final Runnable onHangup = this::reloadAllSoon;
    private ScheduledFuture<?> task;
    private boolean started;

    /**
     * @param metrics    where reloads are counted
     * @param timer      the thread that polls and reloads
     * @param pollMillis how often files are looked at
     */
    ReloadWatch(BrokerMetrics metrics, ScheduledExecutorService timer, long pollMillis) {
        this.metrics = metrics;
        this.timer = timer;
        this.pollMillis = pollMillis;
    }

    /** Watches {@code files}; {@code name} says what they are in logs (e.g. "ACL file"). The files are loaded already. */
    void add(String name, List<Path> files, Reload reload) {
        targets.add(new Target(name, files, reload));
    }

    /**
     * Starts polling and listening for SIGHUP. SIGHUP is handled even with nothing to reload:
     * the JVM's default would end the process, and a service manager's reload must not stop it.
     */
    synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        boolean handled = Hangup.register(onHangup);
        if (!targets.isEmpty()) {
            task = timer.scheduleWithFixedDelay(this::poll, pollMillis, pollMillis, TimeUnit.MILLISECONDS);
            if (handled) {
                LOG.info("SIGHUP reloads {}", targets.stream().map(t -> t.name).toList());
            }
        }
    }

    /** Reloads every target now, on the timer thread; what SIGHUP does. */
    void reloadAllSoon() {
        reloadAllSoon("SIGHUP");
    }

    /** Reloads every target now, on the timer thread; {@code trigger} says who asked, in logs. */
    void reloadAllSoon(String trigger) {
        timer.execute(() -> {
            for (Target target : targets) {
                target.seen = target.stamps();
                reload(target, trigger);
            }
        });
    }

    /** What is reloaded: each target's name and files, e.g. {@code ACL file conf/acl.hocon}. */
    List<String> targets() {
        return targets.stream().map(t -> t.name + " " + String.join(", ", t.files.stream().map(Path::toString).toList()))
                .toList();
    }

    private void poll() {
        for (Target target : targets) {
            try {
                List<Stamp> now = target.stamps();
                boolean settled = now.equals(target.seen);
                target.seen = now;
                if (settled && !Objects.equals(now, target.loaded)) {
                    reload(target, "file change");
                }
            } catch (RuntimeException e) {
                LOG.error("watching {} {} failed", target.name, target.files, e); // keep polling the others
            }
        }
    }

    private void reload(Target target, String trigger) {
        target.loaded = target.seen;
        try {
            target.reload.run();
            metrics.increment(BrokerCounter.FILE_RELOADS);
            LOG.info("reloaded {} {} after {}", target.name, target.files, trigger);
        } catch (Exception e) {
            metrics.increment(BrokerCounter.FILE_RELOADS_FAILED);
            LOG.error("reloading {} {} after {} failed, keeping the previous one", target.name, target.files, trigger, e);
        }
    }

    @Override
    public synchronized void close() {
        Hangup.unregister(onHangup);
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }
}
