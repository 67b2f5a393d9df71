package io.sluice.query;

import io.sluice.exchange.Exchange;
import io.sluice.exchange.ExchangeSettings;
import io.sluice.parquet.ParquetSettings;
import io.sluice.parquet.StoreCounter;
import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;
import io.sluice.ringbus.RingSettings;
import io.sluice.stream.PluginRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The query channel over a captured data set: {@code records} RAW messages of 64 B telemetry-like
 * payloads, 100 per millisecond, all in Parquet files (zstd). Capturing them is set-up, outside
 * the measurement.
 * <ul>
 *   <li>{@link #asyncScan}: one {@code async} query of everything, through a real ZeroMQ socket
 *       and the client library, read frame by frame to EOF. Records/s = records / score;
 *       MB/s = decoded bytes (76 per record: ts 8, len 4, payload 64) / score.</li>
 *   <li>{@link #timeToFirstFrame}: the same query until its first data frame arrives; the rest of
 *       the reply is drained after the measurement.</li>
 * </ul>
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class QueryScanBenchmark {

    static final long T0 = 1_700_000_000_000L;
    static final String EVERYTHING = "async-0-9223372036854775807";

    @Param({"10000000"})
    int records;

    private Path dir;
    private Exchange exchange;
    private QueryServer server;
    private ExchangeConsumer consumer;
    private Query pending;
    long bytesRead;

    @Setup(Level.Trial)
    public void capture() throws IOException {
        dir = Files.createTempDirectory("query-bench");
        RingSettings ring = RingSettings.defaults().withCap(100_000).withSlots(1 << 18).withFlushInterval(Duration.ofMillis(50))
                .withMaxBatchBytes(64L << 20);
        ParquetSettings parquet = ParquetSettings.defaults(dir.toString()).withFileCount(10_000).withQueueBatches(8)
                .withFileRollInterval(Duration.ofMillis(100)); // published soon after their last row
        exchange = Exchange.open(ExchangeSettings.defaults("bench", "plant/#", dir.toString()).withRing(ring).withParquet(parquet),
                PluginRegistry.withBuiltIns());
        byte[][] payloads = new byte[4096][];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = telemetry(i);
        }
        long started = System.nanoTime();
        for (int i = 0; i < records; i++) {
            while (!exchange.offer("plant/line-" + (i & 7) + "/sensor", payloads[i & 4095], T0 + i / 100)) {
                LockSupport.parkNanos(10_000);
            }
        }
        while (exchange.counter(StoreCounter.RECORDS_WRITTEN) < records) {
            LockSupport.parkNanos(1_000_000);
        }
        System.err.printf("captured %d records into %d files in %.1f s%n", records, exchange.counter(StoreCounter.FILES_WRITTEN),
                (System.nanoTime() - started) / 1e9);
        server = QueryServer.open(exchange, QueryServerSettings.defaults("tcp://127.0.0.1:*"));
        consumer = ExchangeConsumer.builder().url(server.endpoint()).timeout(Duration.ofSeconds(60)).connect();
    }

    private static byte[] telemetry(int i) {
        String json = "{\"id\":" + (1000 + i) + ",\"temp\":" + (20 + i % 50) + "." + (i % 100) + ",\"rpm\":" + (3000 + i % 700)
                + ",\"status\":\"ok\"}";
        byte[] bytes = new byte[64];
        byte[] text = json.getBytes(StandardCharsets.US_ASCII);
        for (int at = 0; at < bytes.length; at += text.length) {
            System.arraycopy(text, 0, bytes, at, Math.min(text.length, bytes.length - at));
        }
        return bytes;
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        consumer.close();
        server.close();
        exchange.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Scans everything; the score is the time of one whole reply. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    public long asyncScan() {
        long bytes = 0;
        try (Query query = consumer.query(EVERYTHING)) {
            for (byte[] frame = query.nextFrame(); frame != null; frame = query.nextFrame()) {
                bytes += frame.length;
            }
        }
        if (bytes != 76L * records) {
            throw new IllegalStateException("read " + bytes + " bytes, expected " + 76L * records);
        }
        return bytes;
    }

    /** The time from sending the query to holding its first data frame. */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public int timeToFirstFrame() {
        pending = consumer.query(EVERYTHING);
        return pending.nextFrame().length;
    }

    /** Reads the rest of the reply, so the next query starts on a quiet connection. */
    @TearDown(Level.Invocation)
    public void drain() {
        if (pending != null) {
            while (pending.nextFrame() != null) {
                bytesRead++;
            }
            pending = null;
        }
    }
}
