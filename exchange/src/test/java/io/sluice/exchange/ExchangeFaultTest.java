package io.sluice.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.parquet.StoreCounter;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.storage.CountingReceipt;
import io.sluice.storage.segment.SegmentFaults;
import io.sluice.stream.PluginRegistry;
import io.sluice.testing.Eventually;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An exchange under faults: a write-ahead log whose writes fail as on a full disk (through the
 * segment channel seam), and a Parquet writer thread that dies. Nothing acknowledged is lost, a
 * message that is not stored is not acknowledged as stored, and capture comes back by itself.
 */
class ExchangeFaultTest {

    @TempDir
    Path dir;

    private final GatedPlugin plugin = new GatedPlugin();
    private final SegmentFaults faults = SegmentFaults.install();

    @AfterEach
    void cleanUp() {
        faults.close();
        plugin.open();
    }

    private static ExchangeSettings settings(Path dir) {
        RingSettings ring = RingSettings.defaults().withCap(50).withFlushInterval(Duration.ofMillis(50));
        return ExchangeSettings.defaults("ex", "t/#", dir.toString()).withStreamType(GatedPlugin.ID).withRing(ring)
                .withDurability(Durability.WAL);
    }

    private Exchange open(Path dir) throws IOException {
        PluginRegistry plugins = PluginRegistry.withBuiltIns();
        plugins.register(plugin, "test");
        return Exchange.open(settings(dir), plugins);
    }

    /** Offers messages [from, to), each with its own receipt. */
    private static List<CountingReceipt> offer(Exchange exchange, long from, long to) {
        List<CountingReceipt> receipts = new ArrayList<>();
        for (long i = from; i < to; i++) {
            CountingReceipt receipt = new CountingReceipt();
            receipts.add(receipt);
            assertTrue(exchange.offer(Captured.topic(i), Captured.payload(i), System.currentTimeMillis(), receipt));
        }
        return receipts;
    }

    private static void awaitSettled(List<CountingReceipt> receipts) {
        Eventually.await(() -> receipts.stream().allMatch(r -> r.settled() == 1), () -> "receipts not settled once: "
                + receipts.stream().map(CountingReceipt::settled).toList());
    }

    private static Set<String> payloads(List<Captured.Row> rows) {
        Set<String> payloads = new HashSet<>();
        rows.forEach(row -> payloads.add(new String(row.data(), StandardCharsets.UTF_8)));
        return payloads;
    }

    @Test
    void aFullDiskRefusesWhatItCannotLogAndCaptureComesBackByItself() throws Exception {
        plugin.open();
        Exchange exchange = open(dir);
        List<CountingReceipt> before = offer(exchange, 0, 100);
        awaitSettled(before);
        assertTrue(before.stream().allMatch(r -> r.stored.get() == 1));

        faults.faults().failWrites = true;
        List<CountingReceipt> duringFirst = offer(exchange, 100, 101);
        awaitSettled(duringFirst);
        List<CountingReceipt> during = offer(exchange, 101, 200);
        awaitSettled(during);
        during.addAll(duringFirst);
        assertTrue(during.stream().allMatch(r -> r.refused.get() == 1), "nothing the log could not write is taken for stored");
        assertEquals(1, exchange.counter(ExchangeCounter.WAL_WRITE_FAILURES));
        assertEquals(100, exchange.counter(ExchangeCounter.WAL_RECEIPTS_REFUSED));
        assertTrue(exchange.counter(RingCounter.REJECTED_UNLOGGED) >= 99, "refusals are counted");
        assertEquals(1, exchange.problems().size(), exchange.problems().toString());
        assertTrue(exchange.problems().get(0).contains("No space left on device"), exchange.problems().toString());

        faults.faults().failWrites = false;
        Eventually.await(() -> exchange.problems().isEmpty(), () -> "still " + exchange.problems());
        List<CountingReceipt> after = offer(exchange, 200, 300);
        awaitSettled(after);
        assertTrue(after.stream().allMatch(r -> r.stored.get() == 1), "capture resumed without a restart");
        exchange.close();

        Set<String> captured = payloads(Captured.duckDb(dir));
        for (long i : Captured.range(0, 100)) {
            assertTrue(captured.contains("m-" + i), "acknowledged message " + i + " is in Parquet");
        }
        for (long i : Captured.range(200, 300)) {
            assertTrue(captured.contains("m-" + i), "acknowledged message " + i + " is in Parquet");
        }
    }

    @Test
    void aWriterThatDiesIsRestartedAndWritesWhatItHeld() throws Exception {
        plugin.writerKills.set(1);
        plugin.open();
        Exchange exchange = open(dir);
        List<CountingReceipt> receipts = offer(exchange, 0, 200);
        awaitSettled(receipts);
        // the file stays open (file_roll_interval), so its rows are counted as appended to row groups
        Eventually.await(() -> exchange.counter(StoreCounter.RECORDS_APPENDED) >= 200,
                () -> exchange.counter(StoreCounter.RECORDS_APPENDED) + " records appended");
        assertEquals(1, exchange.counter(StoreCounter.WRITER_DEATHS));
        assertEquals(List.of(), exchange.problems());
        assertTrue(exchange.offer("t/x", new byte[] {1}));
        exchange.close();
        List<Captured.Row> inParquet = Captured.duckDb(dir);
        assertEquals(201, inParquet.size(), "every message once, none lost or written twice by the restarted writer");
        Captured.assertMessages(inParquet.subList(0, 200), Captured.range(0, 200));
    }

    @Test
    void aWriterThatKeepsDyingIsGivenUpAndTheExchangeRefusesAndSaysWhy() throws Exception {
        plugin.writerKills.set(Integer.MAX_VALUE);
        plugin.open();
        Exchange exchange = open(dir);
        List<CountingReceipt> receipts = offer(exchange, 0, 100);
        awaitSettled(receipts);
        assertTrue(receipts.stream().allMatch(r -> r.stored.get() == 1), "the log holds them");
        Eventually.await(() -> !exchange.problems().isEmpty(), "the exchange says its writer is dead");
        assertTrue(exchange.problems().get(0).contains("died 3 times in a row"), exchange.problems().toString());
        assertEquals(3, exchange.counter(StoreCounter.WRITER_DEATHS));
        CountingReceipt refused = new CountingReceipt();
        assertFalse(exchange.offer("t/0", new byte[] {1}, System.currentTimeMillis(), refused));
        assertEquals(0, refused.settled(), "a refused offer leaves its receipt to the caller");
        assertEquals(1, exchange.counter(ExchangeCounter.REJECTED_WRITER_DEAD));
        exchange.close();
        assertEquals(0, Captured.duckDb(dir).size());

        plugin.writerKills.set(0);
        try (Exchange restarted = open(dir)) {
            assertEquals(List.of(), restarted.problems());
        }
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, 100));
    }

    @Test
    void anUnexpectedErrorInTheLogRefusesWhatWaitsAndEveryMessageAfterAndSaysWhy() throws Exception {
        plugin.open();
        Exchange exchange = open(dir);
        List<CountingReceipt> before = offer(exchange, 0, 100);
        awaitSettled(before);
        assertTrue(before.stream().allMatch(r -> r.stored.get() == 1));

        // what a faulting mapped write raises on the ring thread, not an IOException the log expects
        faults.faults().writeError = new InternalError("a fault occurred in an unsafe memory access operation");
        List<CountingReceipt> during = offer(exchange, 100, 101);
        awaitSettled(during);
        faults.faults().writeError = null;
        during.addAll(offer(exchange, 101, 200));
        awaitSettled(during);
        assertTrue(during.stream().allMatch(r -> r.refused.get() == 1), "nothing after the error is taken for stored");
        assertTrue(faults.faults().writesFailed.get() >= 1);
        assertEquals(1, exchange.counter(ExchangeCounter.WAL_FAILURES));
        assertEquals(100, exchange.counter(ExchangeCounter.WAL_RECEIPTS_REFUSED));
        assertEquals(1, exchange.problems().size(), exchange.problems().toString());
        assertTrue(exchange.problems().get(0).contains("offline until restarted: java.lang.InternalError"),
                exchange.problems().toString());
        exchange.close();

        Set<String> captured = payloads(Captured.duckDb(dir));
        for (long i : Captured.range(0, 100)) {
            assertTrue(captured.contains("m-" + i), "acknowledged message " + i + " is in Parquet");
        }
    }
}
