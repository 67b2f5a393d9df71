package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.LogSettings;
import io.sluice.storage.Record;

/**
 * Append throughput of the segmented log for 1 KiB records, per flush policy, in records per
 * second (multiply by the record size for bytes). Two shapes:
 * <ul>
 *  <li>{@link #writerBatch}: the exchange write-ahead log. One writer thread appends a ring batch of
 *      {@value #BATCH} records, commits without waiting, and only waits when more than
 *      {@value #MAX_UNDURABLE_BATCHES} batches are not yet durable (the ring would be full): under
 *      {@code always} the measured rate is the rate at which records become fsynced.</li>
 *  <li>{@link #sharedAppend}: several threads each append one record and block until it is durable
 *      ({@link SharedAppender}, group commit). Run with {@code -t 1}, {@code -t 4}, {@code -t 16}.</li>
 * </ul>
 * The log directory is under {@code java.io.tmpdir} unless {@code -Dsluice.bench.dir} names another
 * disk; retention keeps it under 2 GiB.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 4, time = 4)
@Fork(1)
public class LogAppendBenchmark {
    static final int BATCH = 256;
    static final int MAX_UNDURABLE_BATCHES = 32;

    @Param({"none", "interval", "always"})
    public String flush;

    @Param({"1024"})
    public int recordBytes;

    private Path dir;
    private LogScheduler scheduler;
    private SegmentLog log;
    private SharedAppender appender;
    private byte[] value;
    private Record record;

    @Setup(Level.Trial)
    public void open() throws IOException {
        Path parent = Path.of(System.getProperty("sluice.bench.dir", System.getProperty("java.io.tmpdir")));
        dir = Files.createTempDirectory(parent, "sluice-log-bench-");
        scheduler = new LogScheduler("bench", 2, 500);
        LogSettings settings = LogSettings.builder()
                .segmentBytes(256 * 1024 * 1024)
                .flush(FlushPolicy.fromConfig(flush))
                .flushIntervalMs(1000)
                .retentionBytes(2L * 1024 * 1024 * 1024)
                .build();
        log = SegmentLog.open(dir, "bench", settings, scheduler);
        appender = new SharedAppender(log);
        value = new byte[recordBytes];
        record = Record.ofValue(value, System.currentTimeMillis());
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        log.close();
        scheduler.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public long writerBatch() throws InterruptedException {
        long now = System.currentTimeMillis();
        for (int i = 0; i < BATCH; i++) {
            log.append(now, null, value, "bench/topic");
        }
        long end = log.commit();
        long mustBeDurable = end - (long) BATCH * MAX_UNDURABLE_BATCHES;
        if (mustBeDurable > 0 && log.highWatermark() <= mustBeDurable) {
            log.awaitDurable(mustBeDurable, 10, TimeUnit.SECONDS);
        }
        return end;
    }

    @Benchmark
    public long sharedAppend() {
        return appender.append(record);
    }
}
