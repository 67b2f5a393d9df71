package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogCursor;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.LogSettings;

/**
 * Start-up of the broker state log: open a compacted log holding 100,000 retained messages
 * (topic key, 200-byte payload) and 10,000 sessions (client-id key, 500-byte state) after a clean
 * shutdown, and rebuild the key to value map with one cursor scan. Milliseconds per start-up.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LogScanBenchmark {
    private static final LogSettings SETTINGS = LogSettings.builder()
            .segmentBytes(64 * 1024 * 1024)
            .flush(FlushPolicy.INTERVAL)
            .cleanupPolicy(CleanupPolicy.COMPACT)
            .retentionMs(LogSettings.UNLIMITED)
            .build();

    private Path dir;
    private LogScheduler scheduler;

    @Setup(Level.Trial)
    public void write() throws IOException {
        Path parent = Path.of(System.getProperty("sluice.bench.dir", System.getProperty("java.io.tmpdir")));
        dir = Files.createTempDirectory(parent, "sluice-scan-bench-");
        scheduler = new LogScheduler("bench", 1, 3_600_000);
        try (SegmentLog log = SegmentLog.open(dir, "broker-state", SETTINGS, scheduler)) {
            long now = System.currentTimeMillis();
            byte[] retained = new byte[200];
            byte[] session = new byte[500];
            for (int i = 0; i < 100_000; i++) {
                log.append(now, ("factory/line-" + (i % 50) + "/sensor-" + i).getBytes(StandardCharsets.UTF_8), retained);
                if (i % 1000 == 999) {
                    log.commit();
                }
            }
            for (int i = 0; i < 10_000; i++) {
                log.append(now, ("client-" + i).getBytes(StandardCharsets.UTF_8), session);
            }
            log.commit();
        }
    }

    @TearDown(Level.Trial)
    public void delete() throws IOException {
        scheduler.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Benchmark
    public int openAndRebuildState() {
        Map<String, byte[]> state = new HashMap<>(150_000);
        try (SegmentLog log = SegmentLog.open(dir, "broker-state", SETTINGS, scheduler);
             LogCursor cursor = log.cursor(log.logStartOffset())) {
            while (cursor.next()) {
                String key = new String(cursor.key(), StandardCharsets.UTF_8);
                if (cursor.isTombstone()) {
                    state.remove(key);
                } else {
                    state.put(key, cursor.value());
                }
            }
        }
        return state.size();
    }
}
