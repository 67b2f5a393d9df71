package io.sluice.ringbus;

import io.sluice.testing.Eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** A ring with a write-ahead log: offsets from the log, commits per Disruptor batch, receipts, fullOp FILE. */
class RingWriteAheadLogTest {

    private static final RingSettings SETTINGS = RingSettings.defaults().withCap(10).withFlushInterval(Duration.ofHours(1));

    private static byte[] payload(int i) {
        return ("m" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everyMessageIsAppendedToTheLogWhichAssignsItsOffset() {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        RecordingLog log = new RecordingLog(1000);
        Ring ring = new Ring("ex", SETTINGS, new SequenceKeys(0), log, sink, null);
        ring.start();
        for (int i = 0; i < 25; i++) {
            assertTrue(ring.offer("t/" + (i % 3), payload(i), 500 + i));
        }
        ring.close();
        List<RecordingLog.Entry> entries = log.entries();
        assertEquals(25, entries.size());
        assertEquals(25, log.committed(), "everything appended was committed by the time the ring closed");
        int row = 0;
        for (Batch batch : sink.handedOff()) {
            Batch.Contents c = batch.contents();
            for (int i = 0; i < c.size(); i++, row++) {
                RecordingLog.Entry entry = entries.get(row);
                assertEquals(1000 + row, c.offsets()[i], "the batch carries the log's offset");
                assertEquals(entry.offset(), c.offsets()[i]);
                assertEquals(entry.ts(), c.ts()[i]);
                assertEquals(entry.topic(), c.topics()[i]);
                assertArrayEquals(entry.payload(), c.payloads()[i]);
            }
        }
        assertEquals(25, row);
    }

    @Test
    void withoutReceiptsTheLogIsCommittedWhenTheRingGoesIdle() {
        RecordingLog log = new RecordingLog(0);
        Ring ring = new Ring("ex", SETTINGS, new SequenceKeys(0), log, new RecordingSink(Integer.MAX_VALUE), null);
        ring.start();
        for (int i = 0; i < 5; i++) {
            assertTrue(ring.offer("t", payload(i), 1));
        }
        Eventually.await(() -> log.committed() == 5, () -> log.committed() + " of 5 appended messages committed");
        ring.close();
    }

    @Test
    void receiptsRunOnlyOnceTheLogHoldsTheirMessagesDurably() {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        RecordingLog log = new RecordingLog(1000);
        Ring ring = new Ring("ex", SETTINGS, new SequenceKeys(0), log, sink, null);
        ring.start();
        AtomicIntegerArray runs = new AtomicIntegerArray(5);
        for (int i = 0; i < 5; i++) {
            int message = i;
            assertTrue(ring.offer("t", payload(i), 1, () -> runs.incrementAndGet(message)));
        }
        Eventually.await(() -> log.waitingReceipts() == 5 && log.committed() == 5, () -> log.waitingReceipts() + " receipts waiting");
        assertEquals("[0, 0, 0, 0, 0]", runs.toString(), "nothing is acknowledged before the log says it is durable");
        log.durableBelow(1002);
        assertEquals("[1, 1, 0, 0, 0]", runs.toString());
        log.durableBelow(1005);
        assertEquals("[1, 1, 1, 1, 1]", runs.toString());
        ring.close();
    }

    @Test
    void aMessageTheLogRefusesIsCountedAndItsReceiptIsRefusedAtOnce() {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        RecordingLog log = new RecordingLog(0);
        log.refusing = true;
        Ring ring = new Ring("ex", SETTINGS, new SequenceKeys(0), log, sink, null);
        ring.start();
        AtomicIntegerArray runs = new AtomicIntegerArray(1);
        assertTrue(ring.offer("t", payload(0), 1, () -> runs.incrementAndGet(0)));
        Eventually.await(() -> runs.get(0) == 1, () -> "receipt not settled");
        ring.close();
        assertEquals(1, log.refused.get(), "the receipt was refused, not taken for stored");
        assertEquals(1, ring.counter(RingCounter.REJECTED_UNLOGGED));
        assertEquals(0, ring.counter(RingCounter.RECEIVED));
        assertEquals(0, sink.handedOffRows());
        assertTrue(RingCounter.REJECTED_UNLOGGED.isLoss());
    }

    @Test
    void aMessageABlockedBatchRefusesHasItsReceiptRefusedAtOnce() {
        RecordingSink sink = new RecordingSink(0);
        RecordingLog log = new RecordingLog(0);
        Ring ring = new Ring("ex", SETTINGS.withFullOp(FullOp.NONE), new SequenceKeys(0), log, sink, null);
        ring.start();
        for (int i = 0; i < 10; i++) {
            ring.offer("t", payload(i), 1);
        }
        AtomicIntegerArray runs = new AtomicIntegerArray(1);
        assertTrue(ring.offer("t", payload(10), 1, () -> runs.incrementAndGet(0)));
        Eventually.await(() -> runs.get(0) == 1, () -> "receipt not settled");
        assertEquals(1, log.refused.get(), "the receipt was refused, not taken for stored");
        assertEquals(1, ring.counter(RingCounter.REJECTED_BATCH_FULL));
        assertEquals(10, log.entries().size(), "the refused message never reached the log");
        sink.addRoom(10);
        ring.close();
    }

    @Test
    void withoutALogAReceiptRunsOnceTheMessageIsInABatch() {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        Ring ring = new Ring("ex", SETTINGS, new SequenceKeys(0), sink, null);
        ring.start();
        AtomicIntegerArray runs = new AtomicIntegerArray(1);
        assertTrue(ring.offer("t", payload(0), 1, () -> runs.incrementAndGet(0)));
        Eventually.await(() -> runs.get(0) == 1, () -> "receipt not run");
        assertEquals(1, sink.active.size());
        ring.close();
    }

    @Test
    void aRefusedOfferNeverRunsItsReceipt() {
        RecordingLog log = new RecordingLog(0);
        Ring ring = new Ring("ex", SETTINGS, new SequenceKeys(0), log, new RecordingSink(Integer.MAX_VALUE), null);
        ring.start();
        ring.close();
        AtomicIntegerArray runs = new AtomicIntegerArray(1);
        assertFalse(ring.offer("t", payload(0), 1, () -> runs.incrementAndGet(0)));
        assertEquals(0, runs.get(0), "the caller settles a refused offer");
        assertEquals(1, ring.counter(RingCounter.REJECTED_CLOSED));
    }

    @Test
    void fileLeavesFullBatchesInTheLogInsteadOfSpillFiles() {
        RecordingSink sink = new RecordingSink(0);
        RecordingLog log = new RecordingLog(0);
        Ring ring = new Ring("ex", SETTINGS.withFullOp(FullOp.FILE), new SequenceKeys(0), log, sink, null);
        ring.start();
        for (int i = 0; i < 25; i++) {
            assertTrue(ring.offer("t", payload(i), 1));
        }
        Eventually.await(() -> sink.logged().size() == 2, () -> sink.logged().size() + " batches left in the log");
        assertEquals(20, ring.counter(RingCounter.SPILLED));
        assertEquals(List.of(), sink.spilled);
        assertEquals(0L, sink.logged().get(0).contents().firstOffset());
        assertEquals(19L, sink.logged().get(1).contents().lastOffset());
        sink.addRoom(1);
        ring.close();
        assertEquals(5, sink.handedOffRows());
    }

    @Test
    void fileWaitsForTheWriterWhenTheLogFailedAndThereIsNoSpillDirectory() {
        RecordingSink sink = new RecordingSink(0);
        RecordingLog log = new RecordingLog(0);
        log.available = false;
        Ring ring = new Ring("ex", SETTINGS.withFullOp(FullOp.FILE), new SequenceKeys(0), log, sink, null);
        ring.start();
        for (int i = 0; i < 10; i++) {
            assertTrue(ring.offer("t", payload(i), 1));
        }
        Eventually.await(() -> log.committed() == 10, () -> "the log is committed before the ring waits for the writer");
        assertTrue(sink.handedOff().isEmpty() && sink.logged().isEmpty());
        sink.addRoom(1);
        Eventually.await(() -> sink.handedOffRows() == 10, () -> sink.handedOffRows() + " rows handed up");
        ring.close();
        assertEquals(0, ring.counter(RingCounter.SPILLED));
    }
}
