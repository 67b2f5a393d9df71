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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
 * What a large query costs capture: each operation offers {@value #MESSAGES} 64 B messages to a
 * RAW exchange and waits until they are in Parquet files (as the exchange module's
 * CaptureBenchmark), while (with {@code query=true}) another thread runs {@code async} scans of the
 * {@value #HISTORY} records captured before, back to back, through the exchange's query server.
 * Compare the two scores; the broker-level row (MQTT forwarding with and without a query) is
 * measured by examples/bench/query-load.sh, see docs/benchmarks.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CaptureUnderQueryBenchmark {

    static final int MESSAGES = 200_000;
    static final int HISTORY = 2_000_000;
    static final long T0 = 1_700_000_000_000L;

    @Param({"false", "true"})
    boolean query;

    private Path dir;
    private Exchange exchange;
    private QueryServer server;
    private Thread scanner;
    private volatile boolean scanning;
    private final AtomicLong scannedBytes = new AtomicLong();
    private final byte[] payload = new byte[64];
    private long offered;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Arrays.fill(payload, (byte) 'x');
        dir = Files.createTempDirectory("capture-query-bench");
        RingSettings ring = RingSettings.defaults().withCap(50_000).withSlots(1 << 18).withFlushInterval(Duration.ofMillis(20))
                .withMaxBatchBytes(64L << 20);
        ParquetSettings parquet = ParquetSettings.defaults(dir.toString()).withFileCount(100_000).withQueueBatches(8)
                .withFileRollInterval(Duration.ofMillis(100)); // published soon after their last row
        exchange = Exchange.open(ExchangeSettings.defaults("bench", "plant/#", dir.toString()).withRing(ring).withParquet(parquet),
                PluginRegistry.withBuiltIns());
        offer(HISTORY);
        server = QueryServer.open(exchange, QueryServerSettings.defaults("tcp://127.0.0.1:*"));
        if (query) {
            scanning = true;
            scanner = new Thread(this::scan, "bench-query-load");
            scanner.start();
        }
    }

    private void scan() {
        String command = "async-0-" + (T0 + HISTORY / 100 - 1);
        try (ExchangeConsumer consumer = ExchangeConsumer.builder().url(server.endpoint()).timeout(Duration.ofSeconds(60)).connect()) {
            while (scanning) {
                try (Query q = consumer.query(command)) {
                    for (byte[] frame = q.nextFrame(); frame != null && scanning; frame = q.nextFrame()) {
                        scannedBytes.addAndGet(frame.length);
                    }
                }
            }
        }
    }

    private void offer(int messages) {
        long target = offered + messages;
        for (; offered < target; offered++) {
            while (!exchange.offer("plant/line-" + (offered & 7) + "/sensor", payload, T0 + offered / 100)) {
                LockSupport.parkNanos(10_000);
            }
        }
        while (exchange.counter(StoreCounter.RECORDS_WRITTEN) < target) {
            LockSupport.parkNanos(100_000);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        scanning = false;
        if (scanner != null) {
            scanner.join();
            System.err.printf("the query thread read %.0f MB meanwhile%n", scannedBytes.get() / 1e6);
        }
        server.close();
        exchange.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Offer to files on disk, messages per second. */
    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public void capture() {
        offer(MESSAGES);
    }
}
