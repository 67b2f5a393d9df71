package io.sluice.parquet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bounded queue between an exchange and its writer thread. Batches leave it in the order
 * they came. Capacity counts in-memory batches from the moment they are queued until they are
 * written into a row group (or given up); the open file holds them from then on, and it rolls
 * once they reach {@code file_size}, so together they bound the memory an exchange holds for the
 * writer.
 * A batch stays in the writer's custody from {@link #takeAll} until {@link #done}: published in a
 * file, discarded or given up. A writer that dies puts what it held back ({@link #putBackTaken}),
 * including batches already in its open file, which it deletes.
 * One producer (the ring thread) checks {@link #hasRoom} and then adds, so room cannot vanish in
 * between. Touched once per batch, so a lock is fine.
 */
final class WriteQueue {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<StoreBatch> queued = new ArrayDeque<>();
    /** In the writer's custody (taken, not yet done), in the order they were queued. */
    private final List<StoreBatch> taken = new ArrayList<>();
    /** Those of {@link #taken} whose place was given back (they are in a row group). */
    private final Set<StoreBatch> placeFreed = Collections.newSetFromMap(new IdentityHashMap<>());
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
     * capacity until {@link #release}d or {@link #done}.
     */
    List<StoreBatch> takeAll(long maxWaitNanos) throws InterruptedException {
        long nanos = maxWaitNanos;
        lock.lock();
        try {
            while (queued.isEmpty() && !closing && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            List<StoreBatch> batches = new ArrayList<>(queued);
            queued.clear();
            taken.addAll(batches);
            return batches;
        } finally {
            lock.unlock();
        }
    }

    /** A taken batch is in a row group: its place is free. Idempotent. */
    void release(StoreBatch batch) {
        lock.lock();
        try {
            if (placeFreed.add(batch) && batch.inMemory()) {
                inMemory--;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The batches left the writer's custody (published, discarded or given up); their places are free. */
    void done(Collection<StoreBatch> batches) {
        lock.lock();
        try {
            for (StoreBatch batch : batches) {
                if (!placeFreed.remove(batch) && batch.inMemory()) {
                    inMemory--;
                    changed.signalAll();
                }
                removeTaken(batch);
            }
        } finally {
            lock.unlock();
        }
    }

    /** By identity: two batches may be equal but are never the same. */
    private void removeTaken(StoreBatch batch) {
        for (int i = 0; i < taken.size(); i++) {
            if (taken.get(i) == batch) {
                taken.remove(i);
                return;
            }
        }
    }

    /**
     * Puts every batch taken and not released back at the head of the queue, in their order: the
     * writer that took them died, and the next one writes them.
     *
     * @return how many were put back
     */
    int putBackTaken() {
        lock.lock();
        try {
            for (int i = taken.size() - 1; i >= 0; i--) {
                StoreBatch batch = taken.get(i);
                if (placeFreed.remove(batch) && batch.inMemory()) {
                    inMemory++; // queued again: it counts against capacity until released again
                }
                queued.addFirst(batch);
            }
            int n = taken.size();
            taken.clear();
            changed.signalAll();
            return n;
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
