package io.sluice.ringbus;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A write-ahead log in memory that records what the ring appends and commits, and makes offsets
 * durable only when the test says so; it can refuse appends or report itself failed.
 */
final class RecordingLog implements WriteAheadLog {

    /** One appended message. */
    record Entry(long offset, long ts, String topic, byte[] payload) {
    }

    private record Waiting(long offset, Runnable receipt) {
    }

    private final List<Entry> entries = new ArrayList<>();
    private final List<Waiting> waiting = new ArrayList<>();
    private long next;
    private int committed;
    volatile boolean refusing;
    volatile boolean available = true;
    /** Receipts the ring refused through this log. */
    final AtomicInteger refused = new AtomicInteger();

    RecordingLog(long firstOffset) {
        this.next = firstOffset;
    }

    @Override
    public synchronized long append(long ts, String topic, byte[] payload) {
        if (refusing) {
            return -1;
        }
        entries.add(new Entry(next, ts, topic, payload));
        return next++;
    }

    @Override
    public synchronized void commit() {
        committed = entries.size();
    }

    @Override
    public synchronized void endOfBatch() {
        if (!waiting.isEmpty()) {
            committed = entries.size();
        }
    }

    @Override
    public synchronized void whenDurable(long offset, Runnable receipt) {
        waiting.add(new Waiting(offset, receipt));
    }

    /** Records the refusal, then runs the receipt so a test sees it settled. */
    @Override
    public void refuse(Runnable receipt) {
        refused.incrementAndGet();
        receipt.run();
    }

    @Override
    public boolean isAvailable() {
        return available;
    }

    /** Every offset below {@code end} becomes durable: their receipts run on the caller's thread. */
    void durableBelow(long end) {
        List<Runnable> due = new ArrayList<>();
        synchronized (this) {
            for (Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
                Waiting w = it.next();
                if (w.offset() < end) {
                    due.add(w.receipt());
                    it.remove();
                }
            }
        }
        due.forEach(Runnable::run);
    }

    synchronized List<Entry> entries() {
        return new ArrayList<>(entries);
    }

    /** Entries appended before the latest commit. */
    synchronized int committed() {
        return committed;
    }

    synchronized int waitingReceipts() {
        return waiting.size();
    }
}
