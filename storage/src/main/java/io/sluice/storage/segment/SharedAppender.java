package io.sluice.storage.segment;

import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.storage.FlushPolicy;
import io.sluice.storage.Record;
import io.sluice.storage.StorageException;

/**
 * Lets many threads append to one {@link SegmentLog}; each call returns once its records are durable under
 * the log's flush policy. Under {@code always} this is a group commit, leader and followers:
 * <ol>
 *  <li>a caller appends its records under a lock (so the log still sees one writer at a time);</li>
 *  <li>if no fsync is running, it becomes the leader: it writes the open batch (holding everything
 *      every waiting caller appended), releases the lock, fsyncs, takes the lock back, and wakes
 *      everyone;</li>
 *  <li>otherwise it waits; callers that appended while the leader's fsync ran find their records
 *      not yet durable, and one of them leads the next round, writing all of them as one batch.</li>
 * </ol>
 * So concurrent appends share one write and one fsync, and the fsync never holds the lock that
 * appenders need. Under {@code none} and {@code interval} each call writes its records and returns.
 * Do not mix with the log's own {@link SegmentLog#append}/{@link SegmentLog#commit} writer methods.
 */
public final class SharedAppender {
    private final SegmentLog log;
    private final boolean groupCommit;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition roundDone = lock.newCondition();
    private boolean flushing;

    public SharedAppender(SegmentLog log) {
        this.log = log;
        this.groupCommit = log.settings().flush() == FlushPolicy.ALWAYS;
    }

    /** Appends one record; returns its offset once durable (any thread). */
    public long append(Record record) {
        lock.lock();
        try {
            long offset = log.append(record);
            finish(offset);
            return offset;
        } finally {
            lock.unlock();
        }
    }

    /** Appends records in order, committed together; returns their offsets once durable (any thread). */
    public long[] append(List<Record> records) {
        long[] offsets = new long[records.size()];
        if (offsets.length == 0) {
            return offsets;
        }
        lock.lock();
        try {
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = log.append(records.get(i));
            }
            finish(offsets[offsets.length - 1]);
            return offsets;
        } finally {
            lock.unlock();
        }
    }

    /** With the lock held: returns once {@code offset} is durable. */
    private void finish(long offset) {
        if (!groupCommit) {
            log.commit();
            return;
        }
        while (log.highWatermark() <= offset) {
            if (flushing) {
                awaitRound(offset);
                continue;
            }
            flushing = true;
            try {
                log.writePending();
                lock.unlock();
                try {
                    log.flush();
                } finally {
                    lock.lock();
                }
            } finally {
                flushing = false;
                roundDone.signalAll();
            }
        }
    }

    private void awaitRound(long offset) {
        try {
            roundDone.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException("log '" + log.name() + "': interrupted while waiting for offset " + offset
                    + " to become durable; it may still become durable");
        }
    }
}
