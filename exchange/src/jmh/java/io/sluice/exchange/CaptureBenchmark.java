package io.sluice.exchange;

import io.sluice.parquet.ParquetSettings;
import io.sluice.parquet.StoreCounter;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.storage.FlushPolicy;
import io.sluice.stream.PluginRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
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
 * Capture throughput: each operation offers {@value #MESSAGES} messages to one RAW exchange (zstd)
 * and waits until all of them are in published files on disk ({@link #offerToParquet}: offer,
 * ring, write-ahead log, encode, write, fsync, rename) or until all of them are durable, as a
 * publisher's acknowledgements wait for ({@link #offerUntilDurable}: with a write-ahead log, the
 * log's flush policy; without one, taken by the ring). MB/s = msgs/s × payload bytes. The tee
 * alone is measured by the ringbus module's OfferBenchmark.
 *
 * <p>{@code durability}: {@code none}, or {@code wal-<flush>} for a write-ahead log with that flush
 * policy ({@code none}, {@code interval} every second, {@code always}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CaptureBenchmark {

    static final int MESSAGES = 200_000;
    private static final int DISTINCT_PAYLOADS = 4096;

    @Param({"64", "1024"})
    int payloadBytes;

    @Param({"none", "wal-none", "wal-interval", "wal-always"})
    String durability;

    private Path dir;
    private Exchange exchange;
    private byte[][] payloads;
    private String[] topics;
    private long offered;
    private final AtomicLong durable = new AtomicLong();
    private final Runnable receipt = durable::incrementAndGet;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("capture-bench");
        Random random = new Random(1);
        payloads = new byte[DISTINCT_PAYLOADS][];
        topics = new String[DISTINCT_PAYLOADS];
        for (int i = 0; i < DISTINCT_PAYLOADS; i++) {
            payloads[i] = telemetry(random, payloadBytes);
            topics[i] = "plant/line-" + (i % 8) + "/sensor";
        }
        RingSettings ring = RingSettings.defaults().withCap(50_000).withSlots(1 << 18).withFlushInterval(Duration.ofMillis(20))
                .withMaxBatchBytes(64L << 20);
        ParquetSettings parquet = ParquetSettings.defaults(dir.toString()).withFileCount(20).withQueueBatches(8);
        ExchangeSettings settings = ExchangeSettings.defaults("bench", "plant/#", dir.toString()).withRing(ring).withParquet(parquet);
        if (durability.equals("none")) {
            settings = settings.withDurability(Durability.NONE);
        } else {
            FlushPolicy flush = FlushPolicy.fromConfig(durability.substring("wal-".length()));
            settings = settings.withDurability(Durability.WAL).withWal(ExchangeSettings.WAL_DEFAULTS.toBuilder().flush(flush).build());
        }
        exchange = Exchange.open(settings, PluginRegistry.withBuiltIns());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        exchange.close();
        if (exchange.counter(RingCounter.REJECTED_RING_FULL) > 0) {
            System.err.println("ring full " + exchange.counter(RingCounter.REJECTED_RING_FULL) + " times (offers retried)");
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Offer to row groups on disk (files are published as they reach file_size). */
    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public void offerToParquet() {
        offerAll();
        while (exchange.counter(StoreCounter.RECORDS_APPENDED) < offered) {
            Thread.onSpinWait();
        }
    }

    /** Offer until every message is durable (its receipt ran), not necessarily in Parquet. */
    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public void offerUntilDurable() {
        long base = durable.get();
        for (int i = 0; i < MESSAGES; i++) {
            int k = i & (DISTINCT_PAYLOADS - 1);
            while (!exchange.offer(topics[k], payloads[k], System.currentTimeMillis(), receipt)) {
                Thread.onSpinWait();
            }
        }
        offered += MESSAGES;
        while (durable.get() < base + MESSAGES) {
            Thread.onSpinWait();
        }
    }

    private void offerAll() {
        for (int i = 0; i < MESSAGES; i++) {
            int k = i & (DISTINCT_PAYLOADS - 1);
            while (!exchange.offer(topics[k], payloads[k])) {
                Thread.onSpinWait();
            }
        }
        offered += MESSAGES;
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
