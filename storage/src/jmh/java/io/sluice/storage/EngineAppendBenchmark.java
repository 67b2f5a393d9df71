package io.sluice.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Append throughput of one shard through the adapter, per engine, flush policy and value size: one
 * thread calls {@code batchWrite} with 100 records (no key, one tag) and waits for it to return,
 * i.e. to be durable under the policy. Records per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(1)
public class EngineAppendBenchmark {
    private static final int BATCH = 100;

    @Param({"segment", "rocksdb"})
    public String engine;

    @Param({"none", "interval", "always"})
    public String flush;

    @Param({"100", "1024"})
    public int valueBytes;

    private Path dir;
    private StorageAdapter adapter;
    private List<Record> batch;

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = BenchDirs.create("sluice-engine-append-");
        adapter = StorageAdapter.open(dir);
        adapter.createShard("bench_0", new ShardSettings(Engine.fromConfig(engine), LogSettings.builder()
                .segmentBytes(256 * 1024 * 1024).retentionBytes(2L << 30).flush(FlushPolicy.fromConfig(flush)).build()));
        batch = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (int i = 0; i < BATCH; i++) {
            batch.add(new Record(null, new byte[valueBytes], now, List.of("bench/topic")));
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        adapter.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long[] batchWrite() {
        return adapter.batchWrite("bench_0", batch);
    }
}
