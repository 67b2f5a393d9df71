package io.sluice.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.parquet.StoreCounter;
import io.sluice.ringbus.RingCounter;
import io.sluice.stream.PluginRegistry;
import io.sluice.testing.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A slow stream with the default {@code parquet} settings (one message every 200 ms for 30 s, as
 * issue 15 asks, so about thirty batches at the default 1 s {@code flush_interval}): its batches
 * become row groups of one open file, every message is queryable the whole time (once the ring took it), and a graceful stop publishes it, so
 * the history sits in at most 2 files instead of one file per batch.
 */
class SlowStreamTest {

    private static final int MESSAGES = 150;
    private static final long PERIOD_MS = 200;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Durability.class)
    void slowStreamStaysQueryableAndLandsInAtMostTwoFiles(Durability durability) throws Exception {
        ExchangeSettings settings = ExchangeSettings.defaults("slow", "s/#", dir.toString()).withDurability(durability);
        try (Exchange exchange = Exchange.open(settings, PluginRegistry.withBuiltIns())) {
            long next = System.nanoTime();
            for (int i = 0; i < MESSAGES; i++) {
                assertTrue(exchange.offer(Captured.topic(i), Captured.payload(i)));
                int taken = i + 1;
                Eventually.await(() -> exchange.counter(RingCounter.RECEIVED) == taken, () -> "message taken by the ring");
                Captured.assertMessages(Captured.query(exchange, 0, Long.MAX_VALUE), Captured.range(0, taken));
                next += PERIOD_MS * 1_000_000;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000); // the stream's pace, not a wait for a condition
                }
            }
            Eventually.await(() -> exchange.status().pendingBatches() > 1, () -> "batches handed to the writer");
            assertEquals(0, exchange.counter(StoreCounter.FILES_WRITTEN), "no file is published before file_roll_interval");
            Captured.assertMessages(Captured.query(exchange, 0, Long.MAX_VALUE), Captured.range(0, MESSAGES));
        }
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, MESSAGES));
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> parquet = files.filter(p -> p.getFileName().toString().endsWith(".parquet")).toList();
            assertTrue(parquet.size() <= 2, "files: " + parquet);
        }
    }
}
