package io.sluice.exchange;

import io.sluice.testing.Eventually;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.parquet.ParquetSettings;
import io.sluice.ringbus.Batch;
import io.sluice.ringbus.FullOp;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.ringbus.SpillFile;
import io.sluice.stream.PluginRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every fullOp with a real store whose writer is held (the gated plugin), so the one-batch queue
 * is full: batch 0..9 is being written, the next full batch meets the policy. Durability none.
 */
class FullOpTest {

    @TempDir
    Path dir;

    private final GatedPlugin plugin = new GatedPlugin();

    /** Without a write-ahead log: fullOp FILE spills to files (with one, see WriteAheadLogTest). */
    private ExchangeSettings settings(FullOp op) {
        RingSettings ring = RingSettings.defaults().withCap(10).withFlushInterval(Duration.ofHours(1)).withFullOp(op);
        return ExchangeSettings.defaults("ex", "t/#", dir.toString()).withStreamType(GatedPlugin.ID).withRing(ring)
                .withParquet(ParquetSettings.defaults(dir.toString()).withQueueBatches(1).withFileRollInterval(Duration.ofMillis(100)).withRetention(Duration.ZERO))
                .withDurability(Durability.NONE);
    }

    private Exchange open(ExchangeSettings settings) throws IOException {
        PluginRegistry plugins = PluginRegistry.withBuiltIns();
        plugins.register(plugin, "test");
        return Exchange.open(settings, plugins);
    }

    /** Offers messages 0..9 and waits until the writer holds their batch. */
    private void fillWriter(Exchange exchange) throws InterruptedException {
        for (int i = 0; i < 10; i++) {
            assertTrue(exchange.offer(Captured.topic(i), Captured.payload(i)));
        }
        plugin.writerWaiting.await();
    }

    private List<Path> spillFiles() throws IOException {
        Path spill = dir.resolve(".spill").resolve("ex");
        if (!Files.exists(spill)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(spill)) {
            return files.filter(p -> p.getFileName().toString().endsWith(SpillFile.SUFFIX)).toList();
        }
    }

    @Test
    void noneRejectsAndCountsWhileTheFullBatchCannotBeHandedUp() throws Exception {
        Exchange exchange = open(settings(FullOp.NONE));
        fillWriter(exchange);
        for (int i = 10; i < 35; i++) {
            exchange.offer(Captured.topic(i), Captured.payload(i));
        }
        Eventually.await(() -> exchange.counter(RingCounter.REJECTED_BATCH_FULL) == 15,
                () -> exchange.counter(RingCounter.REJECTED_BATCH_FULL) + " rejected");
        Captured.assertMessages(Captured.query(exchange, 0, Long.MAX_VALUE), Captured.range(0, 20));
        plugin.open();
        exchange.close();
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, 20));
        assertEquals(20, exchange.counter(RingCounter.RECEIVED));
    }

    @Test
    void dropDiscardsTheFullBatchAndCountsEveryMessage() throws Exception {
        Exchange exchange = open(settings(FullOp.DROP));
        fillWriter(exchange);
        for (int i = 10; i < 35; i++) {
            exchange.offer(Captured.topic(i), Captured.payload(i));
        }
        Eventually.await(() -> exchange.counter(RingCounter.DROPPED) == 20, () -> exchange.counter(RingCounter.DROPPED) + " dropped");
        plugin.open();
        exchange.close();
        List<Long> kept = new ArrayList<>(Captured.range(0, 10));
        kept.addAll(Captured.range(30, 35));
        Captured.assertMessages(Captured.duckDb(dir), kept);
    }

    @Test
    void returnWaitsForTheWriterAndTheRingRefusesOffersMeanwhile() throws Exception {
        ExchangeSettings settings = settings(FullOp.RETURN);
        Exchange exchange = open(settings.withRing(settings.ring().withSlots(16)));
        fillWriter(exchange);
        List<Long> accepted = new ArrayList<>(Captured.range(0, 10));
        for (int i = 10; i < 100; i++) {
            if (exchange.offer(Captured.topic(i), Captured.payload(i))) {
                accepted.add((long) i);
            }
        }
        assertTrue(accepted.size() < 100);
        assertEquals(100 - accepted.size(), exchange.counter(RingCounter.REJECTED_RING_FULL));
        plugin.open();
        exchange.close();
        Captured.assertMessages(Captured.duckDb(dir), accepted);
        assertEquals(0, exchange.counter(RingCounter.DROPPED) + exchange.counter(RingCounter.REJECTED_BATCH_FULL));
    }

    @Test
    void fileSpillsFullBatchesAndWritesThemLaterInOrder() throws Exception {
        Exchange exchange = open(settings(FullOp.FILE));
        fillWriter(exchange);
        for (int i = 10; i < 35; i++) {
            exchange.offer(Captured.topic(i), Captured.payload(i));
        }
        Eventually.await(() -> exchange.counter(RingCounter.SPILLED) == 20, () -> exchange.counter(RingCounter.SPILLED) + " spilled");
        assertEquals(2, spillFiles().size());
        assertEquals(2, exchange.status().spilledBatches());
        Captured.assertMessages(Captured.query(exchange, 0, Long.MAX_VALUE), Captured.range(0, 35));
        plugin.open();
        exchange.close();
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, 35));
        assertEquals(List.of(), spillFiles(), "spill files are deleted once their batches are in Parquet");
    }

    @Test
    void spilledBatchesLeftByACrashAreWrittenFirstAtTheNextStart() throws Exception {
        plugin.open();
        try (Exchange exchange = open(settings(FullOp.FILE))) {
            for (int i = 0; i < 10; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i));
            }
        }
        Path spill = dir.resolve(".spill").resolve("ex");
        SpillFile.write(spill, batch(5, 5));
        SpillFile.write(spill, batch(10, 10));
        SpillFile.write(spill, batch(20, 5));
        try (Exchange exchange = open(settings(FullOp.FILE))) {
            assertEquals(2, exchange.counter(ExchangeCounter.BATCHES_RECOVERED));
            Captured.assertMessages(Captured.query(exchange, 0, Long.MAX_VALUE), Captured.range(0, 25));
            for (int i = 25; i < 30; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i));
            }
        }
        List<Captured.Row> rows = Captured.duckDb(dir);
        Captured.assertMessages(rows, Captured.range(0, 30));
        assertEquals(Captured.range(0, 30), rows.stream().map(Captured.Row::offset).toList(), "offsets continue after the spilled ones");
        assertEquals(List.of(), spillFiles());
    }

    /** A batch of messages [first, first + count) with offsets equal to their numbers, as a crashed run spilled it. */
    private static Batch.Contents batch(long first, int count) {
        Batch batch = new Batch(count, count, Long.MAX_VALUE);
        for (long i = first; i < first + count; i++) {
            batch.append(System.currentTimeMillis(), i, Captured.topic(i), Captured.payload(i), 0);
        }
        return batch.contents();
    }
}
