package io.sluice.exchange;

import io.sluice.parquet.DuckDb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.parquet.ParquetSettings;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.stream.PluginRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A million messages offered from two threads within about a second, most of them sharing a
 * millisecond with others: every one is captured, with unique, increasing offsets. The ring and
 * queue are sized so no full policy triggers; the test asserts zero rejects, never a duration.
 */
class CaptureThroughputTest {

    private static final Logger LOG = LoggerFactory.getLogger(CaptureThroughputTest.class);
    private static final int PER_THREAD = 500_000;

    @TempDir
    Path dir;

    /** A 64-byte payload naming its producer and sequence, e.g. {@code a-0000042-........}. */
    private static byte[] payload(char producer, int index) {
        byte[] payload = new byte[64];
        java.util.Arrays.fill(payload, (byte) '.');
        payload[0] = (byte) producer;
        payload[1] = '-';
        for (int i = 8, rest = index; i >= 2; i--, rest /= 10) {
            payload[i] = (byte) ('0' + rest % 10);
        }
        payload[9] = '-';
        return payload;
    }

    @Test
    void oneMillionMessagesFromTwoThreadsAreAllCapturedWithUniqueIncreasingOffsets() throws Exception {
        RingSettings ring = RingSettings.defaults().withCap(100_000).withSlots(1 << 20).withMaxBatchBytes(256L << 20)
                .withFlushInterval(Duration.ofSeconds(1));
        ParquetSettings parquet = ParquetSettings.defaults(dir.toString()).withQueueBatches(32).withFileCount(10_000);
        ExchangeSettings settings = ExchangeSettings.defaults("burst", "load/#", dir.toString()).withRing(ring).withParquet(parquet);
        AtomicLong refused = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        long elapsedNanos;
        try (Exchange exchange = Exchange.open(settings, PluginRegistry.withBuiltIns())) {
            Thread a = producer(exchange, 'a', start, refused);
            Thread b = producer(exchange, 'b', start, refused);
            long began = System.nanoTime();
            start.countDown();
            a.join();
            b.join();
            elapsedNanos = System.nanoTime() - began;
            assertEquals(0, refused.get(), "offers refused");
            assertEquals(0, exchange.counter(RingCounter.REJECTED_RING_FULL) + exchange.counter(RingCounter.REJECTED_BATCH_FULL)
                    + exchange.counter(RingCounter.DROPPED));
        }
        LOG.info("offered {} messages from 2 threads in {} ms ({} msgs/s)", 2 * PER_THREAD, elapsedNanos / 1_000_000,
                2L * PER_THREAD * 1_000_000_000L / elapsedNanos);
        String files = "read_parquet('" + dir + "/*.parquet')";
        Object[] totals = DuckDb.query("SELECT count(*), count(DISTINCT \"offset\"), min(\"offset\"), max(\"offset\"), "
                + "count(DISTINCT ts) FROM " + files).get(0);
        assertEquals(2L * PER_THREAD, ((Number) totals[0]).longValue(), "rows");
        assertEquals(2L * PER_THREAD, ((Number) totals[1]).longValue(), "distinct offsets");
        assertEquals(0L, ((Number) totals[2]).longValue());
        assertEquals(2L * PER_THREAD - 1, ((Number) totals[3]).longValue());
        LOG.info("{} rows share {} distinct ts values", totals[0], totals[4]);
        List<Object[]> backwards = DuckDb.query("SELECT count(*) FROM (SELECT epoch_ms(ts) - lag(epoch_ms(ts)) OVER (ORDER BY \"offset\") AS step FROM "
                + files + ") WHERE step < 0");
        assertEquals(0L, ((Number) backwards.get(0)[0]).longValue(), "ts decreasing with offset");
        List<Object[]> order = DuckDb.query("SELECT producer, count(*), count(*) FILTER (WHERE seq <> previous + 1) FROM ("
                + "SELECT producer, seq, lag(seq) OVER (PARTITION BY producer ORDER BY \"offset\") AS previous FROM ("
                + "SELECT \"offset\", substr(decode(data), 1, 1) AS producer, CAST(substr(decode(data), 3, 7) AS INTEGER) AS seq FROM "
                + files + ")) WHERE previous IS NOT NULL OR seq = 0 GROUP BY producer ORDER BY producer");
        assertEquals(2, order.size());
        for (Object[] row : order) {
            assertEquals((long) PER_THREAD, ((Number) row[1]).longValue(), "messages of producer " + row[0]);
            assertEquals(0L, ((Number) row[2]).longValue(), "producer " + row[0] + " messages out of order or missing");
        }
    }

    private static Thread producer(Exchange exchange, char name, CountDownLatch start, AtomicLong refused) {
        Thread thread = new Thread(() -> {
            try {
                start.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            String topic = "load/" + name;
            for (int i = 0; i < PER_THREAD; i++) {
                if (!exchange.offer(topic, payload(name, i))) {
                    refused.incrementAndGet();
                }
            }
        }, "producer-" + name);
        thread.start();
        return thread;
    }
}
