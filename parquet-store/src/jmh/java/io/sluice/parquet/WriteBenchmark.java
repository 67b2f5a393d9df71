package io.sluice.parquet;

import io.sluice.stream.CaptureBatch;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.PluginSettings;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.raw.RawPlugin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Encode and write alone: one RAW batch of {@value #ROWS} rows per operation, through the store's
 * writer (enqueue, encode, write as a row group; every 16 MiB file_size a file's footer, fsync,
 * rename and publish) and, for comparison, through parquet's example Group API. Scores are rows
 * per second; MB/s = rows/s × payload bytes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class WriteBenchmark {

    static final int ROWS = 100_000;

    @Param({"64", "1024"})
    int payloadBytes;

    @Param({"zstd"})
    String compress;

    private static final int PAGE_BYTES = 1 << 20;

    private Path dir;
    private ParquetStore store;
    private byte[] plainPayloads;
    private final byte[] compressed = new byte[(int) com.github.luben.zstd.Zstd.compressBound(PAGE_BYTES)];
    private final com.github.luben.zstd.ZstdCompressCtx zstd = new com.github.luben.zstd.ZstdCompressCtx().setLevel(3);
    private ColumnBatch batch;
    private CaptureBatch capture;
    private int groupFiles;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("write-bench");
        Random random = new Random(1);
        long[] ts = new long[ROWS];
        long[] offsets = new long[ROWS];
        String[] topics = new String[ROWS];
        byte[][] payloads = new byte[ROWS][];
        for (int i = 0; i < ROWS; i++) {
            ts[i] = 1_700_000_000_000L + i / 100;
            offsets[i] = i;
            // Interned, as the exchange canonicalises topics on offer.
            topics[i] = ("plant/line-" + (i % 8) + "/sensor").intern();
            payloads[i] = telemetry(random, payloadBytes);
        }
        capture = new CaptureBatch(ts, offsets, topics, payloads, 0, ROWS);
        java.nio.ByteBuffer plain = java.nio.ByteBuffer.allocate(ROWS * (payloadBytes + 4)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (byte[] payload : payloads) {
            plain.putInt(payload.length).put(payload);
        }
        plainPayloads = plain.array();
        StreamCodec raw = new RawPlugin().open(PluginSettings.none("bench"));
        batch = raw.encode(capture);
        // One batch in the queue at a time: room comes back once the writer wrote it as a row group.
        ParquetSettings settings = ParquetSettings.defaults(dir.toString()).withCompress(Compression.of(compress))
                .withFileCount(4).withRetention(java.time.Duration.ZERO).withQueueBatches(1);
        store = ParquetStore.open("bench", settings, Map.of(), new StoreListener() {
            @Override
            public void published(StoredFile file, List<StoreBatch> batches, List<StoredFile> retired) {
                for (StoredFile old : retired) {
                    try {
                        store.delete(old);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            }

            @Override
            public void expired(List<StoredFile> retired) {
                throw new IllegalStateException("retention retired files in a benchmark: " + retired);
            }

            @Override
            public void discarded(StoreBatch b, RuntimeException cause) {
                throw cause;
            }

            @Override
            public void unwritten(List<StoreBatch> batches, Exception cause) {
                throw new IllegalStateException(cause);
            }
        });
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        store.close();
        zstd.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** The store's writer: one batch becomes one row group; files are published as they reach file_size. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void storeWriter() throws InterruptedException {
        store.enqueue(new StoreBatch() {
            @Override
            public ColumnBatch encode() {
                return batch;
            }

            @Override
            public boolean inMemory() {
                return true;
            }
        });
        while (!store.awaitRoom(1, TimeUnit.SECONDS)) {
            Thread.onSpinWait();
        }
    }

    /**
     * The floor at 1 KB: zstd alone (level 3, one reused context, as the store's compressor)
     * compressing the batch's payloads laid out as the data column's PLAIN pages (a 4-byte length
     * before each), 1 MiB at a time. The store writer's rate over this rate is capture's cost
     * relative to compression alone.
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int zstdFloor() {
        int total = 0;
        for (int from = 0; from < plainPayloads.length; from += PAGE_BYTES) {
            int length = Math.min(PAGE_BYTES, plainPayloads.length - from);
            total += zstd.compressByteArray(compressed, 0, compressed.length, plainPayloads, from, length);
        }
        return total;
    }

    /** The RAW plugin's encode alone (zero-copy views). */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public ColumnBatch rawEncode() {
        return new RawPlugin().open(PluginSettings.none("bench")).encode(capture);
    }

    /** Parquet's example Group API, one Group object per row, same schema and codec, no fsync. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void groupApi() throws IOException {
        MessageType schema = MessageTypeParser.parseMessageType("message m { required int64 ts; required int64 offset;"
                + " required binary topic (STRING); required binary data; }");
        Path file = dir.resolve("group-" + (groupFiles++ % 4) + ".parquet");
        Files.deleteIfExists(file);
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema)
                .withConf(new Configuration()).withCompressionCodec(CompressionCodecName.fromConf(compress.toUpperCase()))
                .withDictionaryEncoding(false).withDictionaryEncoding("topic", true).build()) {
            for (int i = 0; i < ROWS; i++) {
                writer.write(groups.newGroup().append("ts", capture.ts(i)).append("offset", capture.offset(i))
                        .append("topic", capture.topic(i)).append("data", Binary.fromConstantByteArray(capture.payload(i))));
            }
        }
    }

    /** A telemetry-like JSON payload of exactly {@code size} bytes: realistic to compress, unlike random bytes. */
    static byte[] telemetry(Random random, int size) {
        StringBuilder text = new StringBuilder(size + 64);
        while (text.length() < size) {
            text.append("{\"id\":").append(random.nextInt(10_000)).append(",\"temp\":").append(random.nextInt(4000) / 100.0)
                    .append(",\"rpm\":").append(random.nextInt(9000)).append(",\"status\":\"").append(random.nextBoolean() ? "ok" : "warn")
                    .append("\"}");
        }
        return text.substring(0, size).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
