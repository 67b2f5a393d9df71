package io.sluice.server;

import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ReloadWatchTest {
    @TempDir
    Path dir;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final BrokerMetrics metrics = new BrokerMetrics();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void aChangedFileIsReloadedAndABrokenOneIsCountedAndKeepsTheOldContents() throws Exception {
        Path file = dir.resolve("rules");
        Files.writeString(file, "v1");
        AtomicReference<String> loaded = new AtomicReference<>("v1");
        try (ReloadWatch watch = new ReloadWatch(metrics, timer, 20)) {
            watch.add("rules file", List.of(file), () -> {
                String text = Files.readString(file);
                if (text.startsWith("broken")) {
                    throw new IllegalArgumentException(file + ":1: broken on purpose");
                }
                loaded.set(text);
            });
            watch.start();

            Path replacement = dir.resolve("rules.new");
            Files.writeString(replacement, "v2-longer");
            Files.move(replacement, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Eventually.await(() -> "v2-longer".equals(loaded.get()), "the replaced file is reloaded");

            Files.writeString(file, "broken!");
            Eventually.await(() -> metrics.get(BrokerCounter.FILE_RELOADS_FAILED) == 1, "the failure is counted");
            assertEquals("v2-longer", loaded.get(), "the previous contents stay in force");

            Files.writeString(file, "v3");
            Eventually.await(() -> "v3".equals(loaded.get()), "the fixed file is reloaded");
            assertEquals(2, metrics.get(BrokerCounter.FILE_RELOADS));
        }
    }

    @Test
    void sighupReloadsEveryTargetWithoutAnyChange() throws Exception {
        Runnable nothing = () -> { };
        assumeTrue(Hangup.register(nothing), "this JVM lets SIGHUP be handled");
        Hangup.unregister(nothing);
        Path file = dir.resolve("passwd");
        Files.writeString(file, "unchanged");
        AtomicInteger reloads = new AtomicInteger();
        try (ReloadWatch watch = new ReloadWatch(metrics, timer, 3_600_000)) {
            watch.add("password file", List.of(file), reloads::incrementAndGet);
            watch.start();

            raise("HUP");

            Eventually.await(() -> reloads.get() == 1, "SIGHUP reloads the file");
            assertEquals(1, metrics.get(BrokerCounter.FILE_RELOADS));
        }
    }

    /** Sends a signal to this JVM; only after a handler is installed, or HUP would end the test run. */
    private static void raise(String name) throws ReflectiveOperationException {
        Class<?> signal = Class.forName("sun.misc.Signal");
        signal.getMethod("raise", signal).invoke(null, signal.getConstructor(String.class).newInstance(name));
    }
}
