package io.sluice.ringbus;

import io.sluice.settings.InvalidSettingException;
import io.sluice.testing.Eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RingTest {

    private static final RingSettings SETTINGS = RingSettings.defaults().withCap(10).withFlushInterval(Duration.ofHours(1));

    private static byte[] payload(int i) {
        return ("m" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static List<Batch.Contents> contents(List<Batch> batches) {
        List<Batch.Contents> all = new ArrayList<>();
        batches.forEach(b -> all.add(b.contents()));
        return all;
    }

    /** Checks the batches hold exactly messages 0..n-1 with consecutive offsets from 0. */
    private static void assertHoldsInOrder(List<Batch.Contents> batches, int n) {
        int row = 0;
        for (Batch.Contents batch : batches) {
            for (int i = 0; i < batch.size(); i++, row++) {
                assertEquals(row, batch.offsets()[i]);
                assertArrayEquals(payload(row), batch.payloads()[i], "payload of offset " + row);
                assertEquals("t/" + (row % 3), batch.topics()[i]);
            }
        }
        assertEquals(n, row);
    }

    @Test
    void everyOfferedMessageIsKeyedAndHandedUpInOrder() {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        Ring ring = new Ring("ex", SETTINGS, new SequenceKeys(0), sink, null);
        ring.start();
        for (int i = 0; i < 95; i++) {
            assertTrue(ring.offer("t/" + (i % 3), payload(i), 1000 + i));
        }
        Eventually.await(() -> sink.handedOff().size() == 9, () -> sink.handedOff().size() + " batches");
        assertEquals(10, sink.handedOff().get(0).size());
        ring.close();
        assertEquals(10, sink.handedOff().size());
        assertHoldsInOrder(contents(sink.handedOff()), 95);
        assertEquals(95, ring.counter(RingCounter.RECEIVED));
        assertEquals(10, ring.counter(RingCounter.BATCHES));
    }

    @Test
    void twoProducersLoseNothingAndOffsetsStayUnique() throws InterruptedException {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        Ring ring = new Ring("ex", RingSettings.defaults().withCap(1000), new SequenceKeys(500), sink, null);
        ring.start();
        AtomicInteger refused = new AtomicInteger();
        Runnable producer = () -> {
            for (int i = 0; i < 50_000; i++) {
                if (!ring.offer("t", payload(i), 7)) {
                    refused.incrementAndGet();
                }
            }
        };
        Thread a = new Thread(producer);
        Thread b = new Thread(producer);
        a.start();
        b.start();
        a.join();
        b.join();
        ring.close();
        long expected = 100_000 - refused.get();
        assertEquals(expected, ring.counter(RingCounter.RECEIVED));
        assertEquals(refused.get(), ring.counter(RingCounter.REJECTED_RING_FULL));
        long next = 500;
        for (Batch.Contents batch : contents(sink.handedOff())) {
            for (int i = 0; i < batch.size(); i++) {
                assertEquals(next++, batch.offsets()[i]);
                assertEquals(7, batch.ts()[i]);
            }
        }
        assertEquals(500 + expected, next);
    }

    @Test
    void tsNeverDecreasesWhenTheClockStepsBack() {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        Ring ring = new Ring("ex", SETTINGS, new SequenceKeys(0), sink, null);
        ring.start();
        long[] arrivals = {1000, 500, 2000, 1500, 2000, 3000};
        for (long arrival : arrivals) {
            ring.offer("t", new byte[0], arrival);
        }
        ring.close();
        Batch.Contents batch = sink.handedOff().get(0).contents();
        assertArrayEquals(new long[] {1000, 1000, 2000, 2000, 2000, 3000}, java.util.Arrays.copyOf(batch.ts(), 6));
    }

    @Test
    void slowStreamIsHandedUpAfterFlushInterval() {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        Ring ring = new Ring("ex", RingSettings.defaults().withFlushInterval(Duration.ofMillis(20)), new SequenceKeys(0), sink, null);
        ring.start();
        ring.offer("t", payload(0), 1);
        ring.offer("t", payload(1), 2);
        Eventually.await(() -> sink.handedOffRows() == 2, () -> "rows handed up: " + sink.handedOffRows());
        ring.offer("t", payload(2), 3);
        Eventually.await(() -> sink.handedOff().size() == 2, () -> "batches: " + sink.handedOff().size());
        ring.close();
        assertEquals(3, sink.handedOffRows());
    }

    @Test
    void maxBatchBytesHandsUpBeforeCap() {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        RingSettings settings = SETTINGS.withCap(1000).withMaxBatchBytes(3 * (Batch.ROW_OVERHEAD + 1 + 100));
        Ring ring = new Ring("ex", settings, new SequenceKeys(0), sink, null);
        ring.start();
        for (int i = 0; i < 7; i++) {
            ring.offer("t", new byte[100], i);
        }
        Eventually.await(() -> sink.handedOff().size() == 2, () -> "batches: " + sink.handedOff().size());
        ring.close();
        assertEquals(List.of(3, 3, 1), sink.handedOff().stream().map(Batch::size).toList());
    }

    @Test
    void fullBatchWithNoneRejectsAndCountsUntilItCanBeHandedUp() {
        RecordingSink sink = new RecordingSink(0);
        Ring ring = new Ring("ex", SETTINGS.withFullOp(FullOp.NONE), new SequenceKeys(0), sink, null);
        ring.start();
        for (int i = 0; i < 25; i++) {
            assertTrue(ring.offer("t/" + (i % 3), payload(i), i));
        }
        Eventually.await(() -> ring.counter(RingCounter.REJECTED_BATCH_FULL) == 15,
                () -> ring.counter(RingCounter.REJECTED_BATCH_FULL) + " rejected");
        assertEquals(10, ring.counter(RingCounter.RECEIVED));
        assertEquals(10, sink.active.size());
        sink.addRoom(1);
        Eventually.await(() -> sink.handedOff().size() == 1, () -> "the full batch was not handed up once room appeared");
        for (int i = 10; i < 13; i++) {
            ring.offer("t/" + (i % 3), payload(i), i);
        }
        sink.addRoom(1);
        ring.close();
        assertEquals(List.of(10, 3), sink.handedOff().stream().map(Batch::size).toList());
        assertEquals(15, ring.counter(RingCounter.REJECTED_BATCH_FULL));
        assertEquals(13, ring.counter(RingCounter.RECEIVED));
    }

    @Test
    void fullBatchWithDropIsDiscardedAndEveryMessageCounted() {
        RecordingSink sink = new RecordingSink(0);
        Ring ring = new Ring("ex", SETTINGS.withFullOp(FullOp.DROP), new SequenceKeys(0), sink, null);
        ring.start();
        for (int i = 0; i < 25; i++) {
            ring.offer("t", payload(i), i);
        }
        Eventually.await(() -> ring.counter(RingCounter.DROPPED) == 20, () -> ring.counter(RingCounter.DROPPED) + " dropped");
        assertEquals(2, sink.dropped.size());
        sink.addRoom(1);
        ring.close();
        assertEquals(1, sink.handedOff().size());
        Batch.Contents rest = sink.handedOff().get(0).contents();
        assertEquals(5, rest.size());
        assertEquals(20, rest.firstOffset());
    }

    @Test
    void fullBatchWithReturnWaitsAndTheRingRefusesOffersMeanwhile() {
        RecordingSink sink = new RecordingSink(0);
        Ring ring = new Ring("ex", SETTINGS.withSlots(16), new SequenceKeys(0), sink, null);
        ring.start();
        int accepted = 0;
        for (int i = 0; i < 100; i++) {
            if (ring.offer("t/" + (accepted % 3), payload(accepted), i)) {
                accepted++;
            }
        }
        assertTrue(accepted >= 16 && accepted <= 26, "accepted " + accepted + " of 100 with 16 slots and a blocked batch of 10");
        assertEquals(100 - accepted, ring.counter(RingCounter.REJECTED_RING_FULL));
        sink.addRoom(1000);
        ring.close();
        assertHoldsInOrder(contents(sink.handedOff()), accepted);
        assertEquals(0, ring.counter(RingCounter.DROPPED) + ring.counter(RingCounter.REJECTED_BATCH_FULL));
    }

    @Test
    void fullBatchWithFileIsSpilledToDiskIntact(@TempDir Path dir) throws IOException {
        RecordingSink sink = new RecordingSink(0);
        SpillDirectory spill = SpillDirectory.open(dir.resolve("spill"), "ex");
        Ring ring = new Ring("ex", SETTINGS.withSpillDir(spill.dir()).withFullOp(FullOp.FILE), new SequenceKeys(0), sink, spill);
        ring.start();
        for (int i = 0; i < 25; i++) {
            ring.offer("t/" + (i % 3), payload(i), i);
        }
        Eventually.await(() -> ring.counter(RingCounter.SPILLED) == 20, () -> ring.counter(RingCounter.SPILLED) + " spilled");
        sink.addRoom(1);
        ring.close();
        List<SpilledBatch> files = spill.list();
        assertEquals(2, files.size());
        assertEquals(sink.spilled, files);
        List<Batch.Contents> all = new ArrayList<>();
        for (SpilledBatch file : files) {
            all.add(spill.read(file));
        }
        all.add(sink.handedOff().get(0).contents());
        assertHoldsInOrder(all, 25);
    }

    @Test
    void failedSpillFallsBackToBackPressureAndLosesNothing(@TempDir Path dir) throws IOException {
        RecordingSink sink = new RecordingSink(0);
        SpillDirectory spill = SpillDirectory.open(dir.resolve("spill"), "ex");
        Files.delete(spill.dir());
        Files.writeString(spill.dir(), "not a directory");
        Ring ring = new Ring("ex", SETTINGS.withSpillDir(spill.dir()).withFullOp(FullOp.FILE), new SequenceKeys(0), sink, spill);
        ring.start();
        for (int i = 0; i < 12; i++) {
            ring.offer("t/" + (i % 3), payload(i), i);
        }
        Eventually.await(() -> ring.counter(RingCounter.SPILL_FAILURES) == 1, () -> "no spill failure counted");
        sink.addRoom(2);
        ring.close();
        assertHoldsInOrder(contents(sink.handedOff()), 12);
    }

    @Test
    void handlerErrorIsCountedAndTheRingKeepsGoing() {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        KeySource failingOnce = new KeySource() {
            private final SequenceKeys keys = new SequenceKeys(0);

            @Override
            public long ts(long arrivalMs) {
                if (arrivalMs == 13) {
                    throw new IllegalStateException("clock broke on purpose");
                }
                return keys.ts(arrivalMs);
            }

            @Override
            public long nextOffset() {
                return keys.nextOffset();
            }
        };
        Ring ring = new Ring("ex", SETTINGS, failingOnce, sink, null);
        ring.start();
        for (int i = 10; i < 20; i++) {
            ring.offer("t", payload(i), i);
        }
        ring.close();
        assertEquals(1, ring.counter(RingCounter.HANDLER_ERRORS));
        assertEquals(9, ring.counter(RingCounter.RECEIVED));
        assertEquals(9, sink.handedOffRows());
    }

    @Test
    void offersAfterCloseAreRefusedAndCounted() {
        RecordingSink sink = new RecordingSink(Integer.MAX_VALUE);
        Ring ring = new Ring("ex", SETTINGS, new SequenceKeys(0), sink, null);
        ring.start();
        ring.close();
        assertFalse(ring.offer("t", new byte[1], 1));
        assertEquals(1, ring.counter(RingCounter.REJECTED_CLOSED));
    }

    @Test
    void closeHandsUpABatchThatNoneKeptBlocked() {
        RecordingSink sink = new RecordingSink(0);
        Ring ring = new Ring("ex", SETTINGS.withFullOp(FullOp.NONE), new SequenceKeys(0), sink, null);
        ring.start();
        for (int i = 0; i < 12; i++) {
            ring.offer("t", payload(i), i);
        }
        Eventually.await(() -> ring.counter(RingCounter.REJECTED_BATCH_FULL) == 2, () -> "not blocked");
        Batch full = sink.active;
        sink.addRoom(1);
        ring.close();
        assertSame(full, sink.handedOff().get(0));
    }

    @Test
    void badSettingsNameTheirKey() {
        assertKey("ringbus.cap", () -> RingSettings.defaults().withCap(0));
        assertKey("flush_interval", () -> RingSettings.defaults().withFlushInterval(Duration.ZERO));
        assertKey("max_batch_bytes", () -> RingSettings.defaults().withMaxBatchBytes(0));
        assertKey("ringbus.slots", () -> RingSettings.defaults().withSlots(100));
        assertKey("ringbus.spill_dir", () -> new Ring("ex", RingSettings.defaults().withFullOp(FullOp.FILE), new SequenceKeys(0),
                new RecordingSink(0), null));
        assertKey("ringbus.fullOp", () -> FullOp.of(4));
        assertEquals(RingSettings.MIN_SLOTS, RingSettings.defaults().withCap(10).effectiveSlots());
        assertEquals(1 << 16, RingSettings.defaults().effectiveSlots(), "4 x the default cap of 10,000, rounded up");
        assertEquals(1 << 19, RingSettings.defaults().withCap(100_000).effectiveSlots());
        assertEquals(RingSettings.MAX_SLOTS, RingSettings.defaults().withCap(RingSettings.MAX_CAP).effectiveSlots());
    }

    private static void assertKey(String key, Runnable action) {
        InvalidSettingException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidSettingException.class, action::run);
        assertEquals(key, e.key(), e.getMessage());
    }
}
