package io.sluice.parquet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bounded queue between an exchange and its writer thread. Batches leave it in the order
 * they came. Capacity counts in-memory batches from the moment they are queued until they are
 * written into a row group (or given up); the open file holds them from then on, and it rolls
 * once they reach {@code file_size}, so together they bound the memory an exchange holds for the
 * writer.
 * One producer (the ring thread) checks {@link #hasRoom} and then adds, so room cannot vanish in
 * between. Touched once per batch, so a lock is fine.
 */
final class WriteQueue {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<StoreBatch> queued = new ArrayDeque<>();
    private final int capacity;
    private int inMemory;
    private boolean closing;

    WriteQueue(int capacity) {
        this.capacity = capacity;
    }

    boolean hasRoom() {
        lock.lock();
        try {
            return inMemory < capacity;
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to the timeout for room; true when there is. */
    boolean awaitRoom(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (inMemory >= capacity) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = changed.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Appends a batch, over capacity if need be (the caller decided). */
    void add(StoreBatch batch) {
        lock.lock();
        try {
            queued.addLast(batch);
            if (batch.inMemory()) {
                inMemory++;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes every queued batch, waiting up to {@code maxWaitNanos} for one; an empty list means the
     * wait ran out or the queue is closing with nothing left. The batches still count against
     * capacity until {@link #release}d.
     */
    List<StoreBatch> takeAll(long maxWaitNanos) throws InterruptedException {
        long nanos = maxWaitNanos;
        lock.lock();
        try {
            while (queued.isEmpty() && !closing && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            List<StoreBatch> taken = new ArrayList<>(queued);
            queued.clear();
            return taken;
        } finally {
            lock.unlock();
        }
    }

    /** A taken batch is in a row group or given up: its place is free; once per batch. */
    void release(StoreBatch batch) {
        if (!batch.inMemory()) {
            return;
        }
        lock.lock();
        try {
            inMemory--;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Lets the writer finish what is queued and stop. */
    void close() {
        lock.lock();
        try {
            closing = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean isClosing() {
        lock.lock();
        try {
            return closing;
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to the timeout, returning early (true) when closing; the writer's retry back-off. */
    boolean awaitClosing(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (!closing && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return closing;
        } finally {
            lock.unlock();
        }
    }

    /** In-memory batches queued or being written. */
    int inMemory() {
        lock.lock();
        try {
            return inMemory;
        } finally {
            lock.unlock();
        }
    }
}
