package io.sluice.exchange.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReceiptQueueTest {

    private final List<RuntimeException> failures = new ArrayList<>();
    private final ReceiptQueue queue = new ReceiptQueue(failures::add);

    @Test
    void receiptsRunInOrderOnlyOnceTheirOffsetIsBelowTheDurableEnd() {
        List<Long> ran = new ArrayList<>();
        for (long offset = 10; offset < 10 + 3 * ReceiptQueue.CHUNK; offset++) {
            long o = offset;
            queue.add(offset, () -> ran.add(o));
        }
        assertEquals(0, queue.drain(10));
        assertEquals(5, queue.drain(15));
        assertEquals(List.of(10L, 11L, 12L, 13L, 14L), ran);
        assertEquals(3L * ReceiptQueue.CHUNK - 5, queue.drain(Long.MAX_VALUE));
        assertEquals(3 * ReceiptQueue.CHUNK, ran.size());
        for (int i = 1; i < ran.size(); i++) {
            assertEquals(ran.get(i - 1) + 1, ran.get(i));
        }
        assertEquals(0, queue.waiting());
    }

    @Test
    void aReceiptThatThrowsIsReportedAndTheNextOnesStillRun() {
        AtomicLong ran = new AtomicLong();
        queue.add(1, ran::incrementAndGet);
        queue.add(2, () -> {
            throw new IllegalStateException("broken receipt");
        });
        queue.add(3, ran::incrementAndGet);
        assertEquals(3, queue.drain(4));
        assertEquals(2, ran.get());
        assertEquals(1, failures.size());
    }

    @Test
    void oneProducerAndTwoConsumersRunEveryReceiptExactlyOnceInOrder() throws InterruptedException {
        int receipts = 2_000_000;
        AtomicLong published = new AtomicLong();
        long[] ranAt = new long[receipts];
        AtomicLong order = new AtomicLong();
        Thread producer = new Thread(() -> {
            for (int i = 0; i < receipts; i++) {
                int r = i;
                queue.add(i, () -> ranAt[r] = order.incrementAndGet());
                if ((i & 255) == 255) {
                    published.set(i + 1);
                }
            }
            published.set(receipts);
        });
        Runnable consumer = () -> {
            while (order.get() < receipts) {
                queue.drain(published.get());
            }
        };
        Thread first = new Thread(consumer);
        Thread second = new Thread(consumer);
        producer.start();
        first.start();
        second.start();
        producer.join();
        first.join();
        second.join();
        for (int i = 0; i < receipts; i++) {
            assertEquals(i + 1, ranAt[i], "receipt " + i + " ran once, in order");
        }
        assertTrue(failures.isEmpty());
        assertEquals(0, queue.waiting());
    }
}
