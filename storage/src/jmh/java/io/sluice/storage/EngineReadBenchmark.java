package io.sluice.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reads from a shard of {@code records} records (100-byte values, a unique key {@code device-<i>}
 * and one of 1,000 tags {@code room/<i % 1000>} each), written once per trial with
 * {@code flush = none} and the engine's defaults otherwise, then reopened (except {@code -p
 * engine=memory}, whose records a reopen drops). With {@code -Dsluice.bench.fixtures=<dir>} the
 * segment and rocksdb shards are written once into {@code <dir>/<engine>-<records>} and reopened by
 * later trials and runs, which saves minutes at 10 M records; such a directory is kept.
 * <ul>
 *  <li>{@code readByKey}: one key's record, keys visited in a scattered order;</li>
 *  <li>{@code readByTag}: the first 10 records of a tag from a scattered offset, always 10 (the
 *      offset leaves 10 of every tag after it), so every shard size does the same work;</li>
 *  <li>{@code scan}: every record by offset, 1,000 per {@code readByOffset} (run with {@code -bm ss}).</li>
 * </ul>
 * Key and tag reads go through the engines' indexes, so their cost should not follow {@code records}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(1)
public class EngineReadBenchmark {
    private static final int TAGS = 1000;
    private static final int TAG_READ = 10;
    /** Marks a kept fixture whose records were all written and its adapter closed. */
    private static final String COMPLETE = "fixture-complete";

    @Param({"segment", "rocksdb"})
    public String engine;

    @Param({"1000000", "10000000"})
    public int records;

    /** The rocksdb engine's block cache ({@code rocksdb_block_cache_bytes}) in MiB; 64 is the default. */
    @Param({"64"})
    public int blockCacheMiB;

    private Path dir;
    private StorageAdapter adapter;
    private long next;

    @Setup(Level.Trial)
    public void write() throws IOException {
        String fixtures = System.getProperty("sluice.bench.fixtures");
        boolean keep = fixtures != null && Engine.fromConfig(engine) != Engine.MEMORY;
        dir = keep ? Path.of(fixtures, engine + "-" + records) : BenchDirs.create("sluice-engine-read-");
        if (keep && Files.exists(dir.resolve(COMPLETE))) {
            adapter = openAdapter();
            return;
        }
        if (keep) {
            BenchDirs.deleteIfExists(dir);
            Files.createDirectories(dir);
        }
        adapter = openAdapter();
        adapter.createShard("bench_0", new ShardSettings(Engine.fromConfig(engine), LogSettings.builder()
                .retentionMs(LogSettings.UNLIMITED).flush(FlushPolicy.NONE).build()));
        fill();
        if (Engine.fromConfig(engine) != Engine.MEMORY) {
            adapter.close();
            if (keep) {
                Files.createFile(dir.resolve(COMPLETE));
            }
            adapter = openAdapter();
        }
    }

    private void fill() {
        long now = System.currentTimeMillis();
        byte[] value = new byte[100];
        List<Record> batch = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            batch.add(new Record(key(i), value, now + i, List.of("room/" + i % TAGS)));
            if (batch.size() == 1000) {
                adapter.batchWrite("bench_0", batch);
                batch.clear();
            }
        }
        adapter.batchWrite("bench_0", batch);
    }

    private StorageAdapter openAdapter() {
        return StorageAdapter.open(dir, null, StorageAdapterSettings.defaults().with(
                StorageAdapterSettings.ROCKSDB_BLOCK_CACHE_BYTES, Long.toString(blockCacheMiB * 1024L * 1024)));
    }

    private static byte[] key(long i) {
        return ("device-" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** Visits every index in [0, records) once per cycle, far apart (a multiplicative step). */
    private long scattered() {
        next = (next + 7_919_993L) % records;
        return next;
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        adapter.close();
        if (!Files.exists(dir.resolve(COMPLETE))) {
            BenchDirs.delete(dir);
        }
    }

    @Benchmark
    public List<StoredRecord> readByKey() {
        List<StoredRecord> found = adapter.readByKey("bench_0", key(scattered()), 0, 10);
        if (found.size() != 1) {
            throw new IllegalStateException("expected one record per key, got " + found.size());
        }
        return found;
    }

    @Benchmark
    public List<StoredRecord> readByTag() {
        long from = scattered() % (records - TAG_READ * TAGS);
        List<StoredRecord> found = adapter.readByTag("bench_0", "room/" + from % TAGS, from, TAG_READ);
        if (found.size() != TAG_READ) {
            throw new IllegalStateException("expected " + TAG_READ + " records per tag read, got " + found.size());
        }
        return found;
    }

    @Benchmark
    public long scan() {
        long count = 0;
        for (long offset = 0, end = adapter.endOffset("bench_0"); offset < end; ) {
            List<StoredRecord> chunk = adapter.readByOffset("bench_0", offset, 1000, 1 << 20);
            count += chunk.size();
            offset = chunk.get(chunk.size() - 1).offset() + 1;
        }
        return count;
    }
}
