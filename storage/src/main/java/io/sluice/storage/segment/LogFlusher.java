package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.DurabilityListener;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.StorageCounter;
import io.sluice.storage.StorageException;

/**
 * Makes what a {@link SegmentLog}'s writer wrote durable under the flush policy, and tells whoever
 * waits: it holds the marks that follow the writer (written end, flushed offset, recovery point,
 * high watermark), runs the fsync passes, moves the high watermark, calls the
 * {@link DurabilityListener}s and wakes {@link #awaitDurable} callers.
 *
 * <h2>When the high watermark moves</h2>
 * Under {@code none} and {@code interval}, as soon as a batch is written ({@link #batchWritten}, on
 * the writer thread). Under {@code always}, when the fsync that covers the batch completes
 * ({@link #flush}, on a flusher thread or a group-commit leader).
 *
 * <h2>When fsyncs run</h2>
 * {@code always}: after every commit that wrote something. {@code interval}: every
 * {@code flush_interval_ms} on the scheduler's timer and after {@code flush_messages} records. Every
 * policy: after a roll, so the recovery point can pass the rolled segment. Requests coalesce: one
 * pass on a flusher thread covers everything written before it starts.
 *
 * <h2>Locks</h2>
 * {@code flushLock} guards the flush pass: one at a time, and with it the flushed offset, the
 * recovery point and the directory-fsync mark. {@code waitLock} guards the condition
 * {@link #awaitDurable} sleeps on; it is taken last. {@link SegmentLog} states the order of all of
 * a log's locks.
 */
final class LogFlusher {
    private static final Logger LOG = LoggerFactory.getLogger(LogFlusher.class);

    private final SegmentLog log;
    private final FlushPolicy policy;
    private final LogScheduler scheduler;
    /** Guards the fsync pass, one at a time, with flushedOffset, recoveryPoint and directorySyncedFor. */
    private final ReentrantLock flushLock = new ReentrantLock();
    /** Guards durableChanged, the condition awaitDurable callers sleep on. */
    private final ReentrantLock waitLock = new ReentrantLock();
    private final Condition durableChanged = waitLock.newCondition();
    private final CopyOnWriteArrayList<DurabilityListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private final Runnable scheduledFlush = () -> {
        flushScheduled.set(false);
        flushQuietly();
    };
    private final ScheduledFuture<?> intervalFlush;

    private volatile SegmentLog.Position written;
    private volatile SegmentLog.Position highWatermark;
    private volatile long flushedOffset;
    private volatile long recoveryPoint;
    private volatile long directorySyncedFor;
    /** The last checkpoint write failed: the file's recovery point is older than recoveryPoint. Under flushLock. */
    private boolean checkpointBehind;
    private volatile int waiters;
    private volatile Runnable beforeFsync = () -> { };

    /** Starts with everything up to {@code end} written, flushed and readable (as the open found the log). */
    LogFlusher(SegmentLog log, LogScheduler scheduler, SegmentLog.Position end, long recoveryPoint) {
        this.log = log;
        this.policy = log.settings().flush();
        this.scheduler = scheduler;
        this.written = end;
        this.highWatermark = end;
        this.flushedOffset = end.offset();
        this.recoveryPoint = recoveryPoint;
        this.directorySyncedFor = end.segmentBase();
        this.intervalFlush = policy == FlushPolicy.INTERVAL
                ? scheduler.flushEvery(log.name(), log.settings().flushIntervalMs(), this::flushIfDirty) : null;
    }

    /** Exclusive end of what readers may see. */
    SegmentLog.Position highWatermark() {
        return highWatermark;
    }

    long flushedOffset() {
        return flushedOffset;
    }

    /** Every segment wholly below it was fsynced with its indexes. */
    long recoveryPoint() {
        return recoveryPoint;
    }

    // ---------------------------------------------------------------- the writer's side

    /** A batch ending at {@code end} was written (writer thread); {@code rolled}: it opened a new segment. */
    void batchWritten(SegmentLog.Position end, boolean rolled) {
        written = end;
        if (policy != FlushPolicy.ALWAYS) {
            advanceHighWatermark(end);
        }
        if (rolled) {
            requestFlush();
        }
    }

    /** The writer committed everything below {@code nextOffset}: requests the fsync the policy wants now. */
    void committed(long nextOffset) {
        switch (policy) {
            case ALWAYS -> {
                if (flushedOffset < nextOffset) {
                    requestFlush();
                }
            }
            case INTERVAL -> {
                if (nextOffset - flushedOffset >= log.settings().flushMessages()) {
                    requestFlush();
                }
            }
            case NONE -> {
            }
        }
    }

    /** An empty log now continues at {@code offset} in a fresh segment: every mark starts there. */
    void restartAt(long offset) {
        flushLock.lock();
        try {
            SegmentLog.Position end = new SegmentLog.Position(offset, offset, 0);
            written = end;
            flushedOffset = offset;
            highWatermark = end;
            recoveryPoint = offset;
        } finally {
            flushLock.unlock();
        }
    }

    // ---------------------------------------------------------------- fsyncs

    private void requestFlush() {
        if (flushScheduled.compareAndSet(false, true)) {
            try {
                scheduler.flushSoon(scheduledFlush);
            } catch (RejectedExecutionException e) {
                scheduledFlush.run(); // the scheduler was closed before this log: flush here rather than never
            }
        }
    }

    private void flushIfDirty() {
        if (written.offset() > flushedOffset) {
            flushQuietly();
        }
    }

    private void flushQuietly() {
        if (!log.isOpen()) {
            return;
        }
        try {
            flush();
        } catch (StorageException e) {
            // already logged and counted by the log's fail(); it is offline and waiters have been woken
        }
    }

    /**
     * fsyncs everything written so far (any thread; one pass at a time). Advances the flushed offset,
     * the recovery point past rolled segments and, under {@code always}, the high watermark.
     *
     * @return the flushed offset: every offset below it is on disk
     */
    long flush() {
        flushLock.lock();
        try {
            log.checkNotFailed();
            SegmentLog.Position target = written;
            if (target.offset() <= flushedOffset && target.segmentBase() <= recoveryPoint) {
                return flushedOffset;
            }
            beforeFsync.run();
            if (target.segmentBase() != directorySyncedFor) {
                DurableFiles.fsyncDirectory(log.directory());
                directorySyncedFor = target.segmentBase();
            }
            flushSegmentsUpTo(target);
            flushedOffset = Math.max(flushedOffset, target.offset());
            if (policy == FlushPolicy.ALWAYS) {
                advanceHighWatermark(target);
            }
            if (target.segmentBase() > recoveryPoint || checkpointBehind) {
                recoveryPoint = Math.max(recoveryPoint, target.segmentBase());
                checkpointRecoveryPoint();
            }
            return flushedOffset;
        } catch (IOException e) {
            throw log.fail("fsync of " + log.directory(), e);
        } finally {
            flushLock.unlock();
        }
    }

    /**
     * Writes the moved recovery point to the checkpoint. A failure (a full disk) is not the log's:
     * the data is flushed, and an old recovery point only makes the next open scan more, so it is
     * logged once and the checkpoint is written again at the next flush.
     */
    private void checkpointRecoveryPoint() {
        try {
            log.writeCheckpoint();
            checkpointBehind = false;
        } catch (IOException e) {
            if (!checkpointBehind) {
                LOG.warn("Log '{}': cannot write the checkpoint in {} ({}); a crash now makes the next open scan from an "
                        + "older recovery point", log.name(), log.directory(), e.toString());
            }
            checkpointBehind = true;
        }
    }

    /** fsyncs the segments from the first not yet flushed to the one holding {@code target}. */
    private void flushSegmentsUpTo(SegmentLog.Position target) throws IOException {
        LogSegments segments = log.segments();
        Segment from = segments.floor(Math.min(flushedOffset, recoveryPoint));
        if (from == null) {
            from = segments.first(); // the segment holding that offset was trimmed away
        }
        long firstBase = from == null ? target.segmentBase() : from.baseOffset();
        for (Segment segment : segments.range(firstBase, target.segmentBase())) {
            flushSegment(segment, segment.baseOffset() < target.segmentBase());
        }
    }

    /** fsyncs one segment; a rolled one with its indexes, so the recovery point may pass it. */
    private void flushSegment(Segment segment, boolean rolled) throws IOException {
        if (!segment.tryRetain()) {
            return; // deleted meanwhile: nothing of it needs to reach the disk
        }
        try {
            if (rolled) {
                segment.flush();
            } else {
                segment.flushLog();
            }
            log.counters().increment(StorageCounter.FSYNCS);
        } finally {
            segment.release();
        }
    }

    /**
     * The clean close's last step, after any running fsync: cuts the active segment's indexes,
     * fsyncs it, checkpoints {@code end} as the recovery point and leaves the clean-shutdown marker
     * so the next open skips the scan.
     */
    void flushAndMarkClean(Segment active, long end) throws IOException {
        flushLock.lock();
        try {
            active.onBecomeInactive();
            active.flush();
            recoveryPoint = end;
            log.writeCheckpoint();
            Files.createFile(log.directory().resolve(LogLoader.CLEAN_SHUTDOWN_FILE));
            DurableFiles.fsyncDirectory(log.directory());
        } finally {
            flushLock.unlock();
        }
    }

    /** Stops the {@code interval} timer (the log is closing). */
    void stop() {
        if (intervalFlush != null) {
            intervalFlush.cancel(false);
        }
    }

    /** Test hook: runs before each fsync pass, so a test can hold a group commit open deterministically. */
    void beforeFsync(Runnable hook) {
        this.beforeFsync = hook;
    }

    // ---------------------------------------------------------------- the high watermark and who waits for it

    void addListener(DurabilityListener listener) {
        listeners.add(listener);
    }

    private void advanceHighWatermark(SegmentLog.Position end) {
        if (end.offset() <= highWatermark.offset()) {
            return;
        }
        highWatermark = end;
        for (DurabilityListener listener : listeners) {
            try {
                listener.onDurable(end.offset());
            } catch (RuntimeException e) {
                log.counters().increment(StorageCounter.LISTENER_FAILURES);
                if (log.counters().get(StorageCounter.LISTENER_FAILURES) == 1) {
                    LOG.error("Log '{}': a durability listener failed at high watermark {} (further failures are only counted)",
                            log.name(), end.offset(), e);
                }
            }
        }
        wakeWaiters();
    }

    /** Wakes {@link #awaitDurable} callers to look again: the high watermark moved, or the log failed or closed. */
    void wakeWaiters() {
        if (waiters > 0) {
            waitLock.lock();
            try {
                durableChanged.signalAll();
            } finally {
                waitLock.unlock();
            }
        }
    }

    /**
     * Blocks until {@code offset} is below the high watermark (durable and readable), the timeout
     * passes (false), or the log fails or closes (exception).
     */
    boolean awaitDurable(long offset, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        waitLock.lock();
        waiters++;
        try {
            while (highWatermark.offset() <= offset) {
                log.checkNotFailed();
                if (log.isClosed()) {
                    throw new StorageException("log '" + log.name() + "' closed while waiting for offset " + offset + " to be durable");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                durableChanged.awaitNanos(left);
            }
            return true;
        } finally {
            waiters--;
            waitLock.unlock();
        }
    }
}
