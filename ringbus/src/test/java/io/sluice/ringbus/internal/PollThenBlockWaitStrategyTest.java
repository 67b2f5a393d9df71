package io.sluice.ringbus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.RingBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PollThenBlockWaitStrategyTest {

    private final PollThenBlockWaitStrategy strategy = new PollThenBlockWaitStrategy(TimeUnit.SECONDS.toNanos(1));

    @Test
    void sleepsLongOnlyAfterAWakeUpThatFoundManyOffers() {
        assertEquals(PollThenBlockWaitStrategy.FIRST_SLEEP_NANOS, strategy.firstSleep(0), "an idle ring looks again soon");
        assertEquals(PollThenBlockWaitStrategy.FIRST_SLEEP_NANOS, strategy.firstSleep(3), "3 offers since: a low rate");
        long busy = 3 + PollThenBlockWaitStrategy.BUSY_EVENTS;
        assertEquals(PollThenBlockWaitStrategy.BUSY_SLEEP_NANOS, strategy.firstSleep(busy), "16 offers since: busy");
        assertEquals(PollThenBlockWaitStrategy.BUSY_SLEEP_NANOS, strategy.firstSleep(busy + 100), "still busy");
        assertEquals(PollThenBlockWaitStrategy.FIRST_SLEEP_NANOS, strategy.firstSleep(busy + 101), "the rate fell");
        assertEquals(PollThenBlockWaitStrategy.FIRST_SLEEP_NANOS, strategy.firstSleep(busy + 101), "a timeout tick found none");
    }

    /**
     * The cursor has passed a slot that is claimed but not published: the ring thread must leave
     * the core to the claim's holder (sleep) instead of asking the barrier again for ever.
     */
    @Test
    void aClaimedSlotNotYetPublishedIsWaitedForAsleep() throws Exception {
        RingBuffer<long[]> ring = RingBuffer.createMultiProducer(() -> new long[1], 16, strategy);
        AtomicLong taken = new AtomicLong(-1);
        BatchEventProcessor<long[]> processor = new BatchEventProcessorBuilder()
                .build(ring, ring.newBarrier(), (event, sequence, endOfBatch) -> taken.set(sequence));
        ring.addGatingSequences(processor.getSequence());
        long held = ring.next();
        ring.publish(ring.next());
        Thread thread = new Thread(processor, "ring-under-test");
        thread.start();
        try {
            assertTrue(waitFor(() -> thread.getState() == Thread.State.TIMED_WAITING),
                    "the ring thread never slept while slot " + held + " was claimed and not published");
            assertEquals(-1, taken.get(), "nothing is taken past the unpublished slot");
            ring.publish(held);
            assertTrue(waitFor(() -> taken.get() == held + 1), "both slots are taken once the first is published");
        } finally {
            processor.halt();
            thread.join();
        }
    }

    private static boolean waitFor(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }
}
