package io.sluice.exchange.internal;

import io.sluice.storage.Receipt;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Receipts waiting for their offsets to become durable, in offset order: the ring thread adds,
 * whichever thread learns that the log's high watermark moved runs the due ones.
 *
 * <p>A single-producer queue of fixed chunks of {@value #CHUNK} entries (an offset and a receipt
 * each) linked as they fill, so adding never blocks, takes no lock and allocates only a new chunk
 * every {@value #CHUNK} receipts (none in steady state: the consumer hands its last emptied chunk
 * back for reuse). The producer writes an entry, then publishes the count of entries with one
 * ordered store; a consumer reads the count, then the entries below it. Consumers (flusher
 * threads, the ring thread, the closing thread) take turns on this object's monitor, once per
 * drain, never per receipt.
 *
 * <p>It is unbounded by design: only QoS 1/2 messages carry receipts, and each publisher waits for
 * its acknowledgements, so the broker's in-flight limits bound how many can wait at once.
 */
final class ReceiptQueue {

    static final int CHUNK = 1024;

    /** Called with a receipt that threw; the queue goes on with the next one. */
    interface FailureHandler {
        void failed(RuntimeException e);
    }

    private static final class Chunk {
        final long[] offsets = new long[CHUNK];
        final Runnable[] receipts = new Runnable[CHUNK];
        volatile Chunk next;
    }

    private final FailureHandler failures;
    /** Entries ever added; written by the producer only, with ordered stores. */
    private final AtomicLong added = new AtomicLong();
    /** An emptied chunk the consumer hands back to the producer. */
    private final AtomicReference<Chunk> spare = new AtomicReference<>();

    // Producer only.
    private Chunk tail;
    private int tailIndex;
    private long addedPlain;

    // Consumers, under this object's monitor.
    private Chunk head;
    private int headIndex;
    private long taken;

    ReceiptQueue(FailureHandler failures) {
        this.failures = failures;
        this.tail = new Chunk();
        this.head = tail;
    }

    /** Adds a receipt for {@code offset}, not smaller than the previous one; producer thread only. */
    void add(long offset, Runnable receipt) {
        if (tailIndex == CHUNK) {
            Chunk fresh = spare.getAndSet(null);
            if (fresh == null) {
                fresh = new Chunk();
            }
            fresh.next = null;
            tail.next = fresh;
            tail = fresh;
            tailIndex = 0;
        }
        tail.offsets[tailIndex] = offset;
        tail.receipts[tailIndex] = receipt;
        tailIndex++;
        added.lazySet(++addedPlain);
    }

    /**
     * Runs, in order, every receipt whose offset is below {@code durableEnd}; any thread.
     *
     * @return how many ran
     */
    synchronized long drain(long durableEnd) {
        return settle(durableEnd, true);
    }

    /**
     * Refuses, in order, every receipt still waiting ({@link Receipt#refuse}): their messages will
     * not be durable. Any thread.
     *
     * @return how many were refused
     */
    synchronized long refuseAll() {
        return settle(Long.MAX_VALUE, false);
    }

    private long settle(long durableEnd, boolean stored) {
        long available = added.get();
        long ran = 0;
        while (taken < available) {
            if (headIndex == CHUNK) {
                Chunk done = head;
                head = done.next;
                headIndex = 0;
                spare.lazySet(done);
            }
            if (head.offsets[headIndex] >= durableEnd) {
                break;
            }
            Runnable receipt = head.receipts[headIndex];
            head.receipts[headIndex] = null;
            headIndex++;
            taken++;
            ran++;
            try {
                if (stored) {
                    receipt.run();
                } else {
                    Receipt.refuse(receipt);
                }
            } catch (RuntimeException e) {
                failures.failed(e);
            }
        }
        return ran;
    }

    /** Receipts added and not yet run; any thread (a snapshot). */
    long waiting() {
        synchronized (this) {
            return added.get() - taken;
        }
    }
}
