package io.sluice.storage.segment;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.Header;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogOfflineException;
import io.sluice.storage.LogSettings;
import io.sluice.storage.OffsetOutOfRangeException;
import io.sluice.storage.Record;
import io.sluice.storage.RecordTooLargeException;
import io.sluice.storage.StorageCounter;
import io.sluice.storage.StorageCounters;
import io.sluice.storage.StorageException;
import io.sluice.storage.StoredRecord;

/**
 * A segmented append-only log in one directory: record batches in segment files named by base
 * offset, sparse offset and time indexes, rolled by size and age, recovered after a crash
 * ({@link LogLoader}), flushed by policy, trimmed by retention or {@link #deleteRecordsBefore},
 * compacted by key ({@link Cleaner}).
 *
 * <h2>Offsets</h2>
 * Offsets start at 0 (or at {@link #startAt}) and continue across restarts. Three marks move
 * forward: the log start offset (first readable), the high watermark (exclusive end of what is
 * durable under the flush policy and so readable), and the next offset the writer assigns.
 *
 * <h2>Threads</h2>
 * <ul>
 *  <li>Writer methods ({@link #append}, {@link #commit}, {@link #startAt}) belong to one thread at a
 *      time, like a single-producer sequencer: they take no lock and allocate nothing per record.
 *      For several appending threads, use {@link SharedAppender}.</li>
 *  <li>Readers ({@link #read}, {@link #cursor}, {@link #offsetForTimestamp}) run on any thread, never
 *      see past the high watermark, and never block the writer (positional reads, no shared lock).</li>
 *  <li>Flushes run on the {@link LogScheduler}'s flusher threads or on a group-commit leader;
 *      retention and compaction on its cleaner thread; {@link #deleteRecordsBefore} on any thread.</li>
 * </ul>
 *
 * <h2>Durability</h2>
 * Appended records sit in the open batch until {@link #commit} (or until the batch fills) writes
 * them to the active segment. Under {@code none} and {@code interval} the high watermark then moves
 * at once; under {@code always} it moves when the fsync that covers them completes, and
 * {@link DurabilityListener}s hear of it. A failed write or fsync takes the log offline for good.
 */
public final class Log implements Closeable {
    /** {@link #offsetForTimestamp} sentinel: the log start offset. */
    public static final long EARLIEST_TIMESTAMP = -2;
    /** {@link #offsetForTimestamp} sentinel: the high watermark. */
    public static final long LATEST_TIMESTAMP = -1;
    /** Largest batch the writer builds; larger records get a batch of their own. */
    static final int MAX_BATCH_BYTES = 1024 * 1024;
    private static final String LOCK_FILE = ".lock";
    private static final Logger LOG = LoggerFactory.getLogger(Log.class);

    /** A mark in the log: an offset and the byte where it begins in the segment with base {@code segmentBase}. */
    record Position(long offset, long segmentBase, int bytePosition) {
    }

    private final String name;
    private final Path dir;
    private final LogSettings settings;
    private final LogScheduler scheduler;
    private final boolean ownsScheduler;
    private final StorageCounters counters = new StorageCounters();
    private final LogSegments segments;
    private final RecoveryReport recoveryReport;
    private final FileChannel lockChannel;
    private final FileLock lock;

    // Writer thread only.
    private final RecordBatchBuilder builder;
    private long nextOffset;

    private volatile Segment active;
    private volatile Position written;
    private volatile Position highWatermark;
    private volatile long flushedOffset;
    private volatile long logStartOffset;
    private volatile long recoveryPoint;
    private volatile long cleanerCheckpoint;
    private volatile long directorySyncedFor;
    private volatile Throwable failure;
    private volatile boolean closed;

    private final ReentrantLock flushLock = new ReentrantLock();
    private final ReentrantLock structureLock = new ReentrantLock();
    private final Object checkpointLock = new Object();
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private final CopyOnWriteArrayList<DurabilityListener> listeners = new CopyOnWriteArrayList<>();
    private final ReentrantLock waitLock = new ReentrantLock();
    private final Condition durableChanged = waitLock.newCondition();
    private volatile int waiters;
    private final ScheduledFuture<?> intervalFlush;
    private final Runnable scheduledFlush = () -> {
        flushScheduled.set(false);
        flushQuietly();
    };
    private volatile Runnable beforeFsync = () -> { };

    private Log(Path dir, String name, LogSettings settings, LogScheduler scheduler, boolean ownsScheduler) throws IOException {
        this.dir = dir;
        this.name = name;
        this.settings = settings;
        this.scheduler = scheduler;
        this.ownsScheduler = ownsScheduler;
        Files.createDirectories(dir);
        this.lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        this.lock = lockDirectory();
        LogLoader.Loaded loaded;
        try {
            loaded = new LogLoader(dir, name, settings, counters).load();
        } catch (IOException | RuntimeException e) {
            lockChannel.close();
            throw e;
        }
        this.segments = loaded.segments();
        this.recoveryReport = loaded.report();
        this.logStartOffset = loaded.logStartOffset();
        this.recoveryPoint = loaded.recoveryPoint();
        this.cleanerCheckpoint = loaded.cleanerCheckpoint();
        this.active = segments.last();
        this.nextOffset = active.nextOffset();
        this.builder = new RecordBatchBuilder(Math.min(MAX_BATCH_BYTES, settings.segmentBytes()));
        Position end = new Position(nextOffset, active.baseOffset(), active.size());
        this.written = end;
        this.highWatermark = end;
        this.flushedOffset = nextOffset;
        this.directorySyncedFor = active.baseOffset();
        this.intervalFlush = settings.flush() == FlushPolicy.INTERVAL
                ? scheduler.flushEvery(name, settings.flushIntervalMs(), this::flushIfDirty) : null;
        scheduler.register(this);
    }

    private FileLock lockDirectory() throws IOException {
        FileLock acquired;
        try {
            acquired = lockChannel.tryLock();
        } catch (OverlappingFileLockException e) {
            acquired = null;
        }
        if (acquired == null) {
            lockChannel.close();
            throw new StorageException("log '" + name + "': directory " + dir + " is already open in this or another process");
        }
        return acquired;
    }

    /**
     * Opens (creating if needed) the log in {@code dir}, recovering it if it was not closed cleanly.
     *
     * @param name      the log's name in messages and thread names (an exchange or shard name)
     * @param scheduler flusher and cleaner threads, shared with other logs and closed by the caller
     */
    public static Log open(Path dir, String name, LogSettings settings, LogScheduler scheduler) {
        try {
            return new Log(dir, name, settings, scheduler, false);
        } catch (IOException e) {
            throw new StorageException("log '" + name + "': opening " + dir + " failed: " + e.getMessage(), e);
        }
    }

    /** Opens the log with a scheduler of its own, closed with the log. */
    public static Log open(Path dir, String name, LogSettings settings) {
        LogScheduler own = new LogScheduler(name);
        try {
            return new Log(dir, name, settings, own, true);
        } catch (IOException | RuntimeException e) {
            own.close();
            if (e instanceof StorageException se) {
                throw se;
            }
            throw new StorageException("log '" + name + "': opening " + dir + " failed: " + e.getMessage(), e);
        }
    }

    public String name() {
        return name;
    }

    public Path directory() {
        return dir;
    }

    public LogSettings settings() {
        return settings;
    }

    public StorageCounters counters() {
        return counters;
    }

    /** What the open found and repaired. */
    public RecoveryReport recoveryReport() {
        return recoveryReport;
    }

    // ---------------------------------------------------------------- writer

    /**
     * Appends a record to the open batch and returns its offset (writer thread). The record becomes
     * durable and readable after {@link #commit}. Allocates nothing.
     *
     * @param key   may be null (not in a compacted log)
     * @param value may be null: with a key, a tombstone
     * @param tag   may be null: no tag
     */
    public long append(long timestamp, byte[] key, byte[] value, CharSequence tag) {
        return append0(timestamp, key, value, tag, List.of(), List.of());
    }

    /** Appends a record without tags; see {@link #append(long, byte[], byte[], CharSequence)}. */
    public long append(long timestamp, byte[] key, byte[] value) {
        return append0(timestamp, key, value, null, List.of(), List.of());
    }

    /** Appends a record with any number of tags and headers; see {@link #append(long, byte[], byte[], CharSequence)}. */
    public long append(Record record) {
        return append0(record.timestamp(), record.key(), record.value(), null, record.tags(), record.headers());
    }

    private long append0(long timestamp, byte[] key, byte[] value, CharSequence tag, List<String> tags,
                         List<Header> headers) {
        checkWritable();
        if (timestamp < 0) {
            throw new IllegalArgumentException("log '" + name + "': record timestamp must be >= 0, was " + timestamp);
        }
        if (key == null && settings.cleanupPolicy() == CleanupPolicy.COMPACT) {
            throw new IllegalArgumentException("log '" + name + "' is compacted (cleanup_policy = compact): a record needs a key");
        }
        long offset = nextOffset;
        int size = builder.sizeIfAppended(offset, timestamp, key, value, tag, tags, headers);
        if (size > builder.remaining() && !builder.isEmpty()) {
            writeBatch(builder);
            size = builder.sizeIfAppended(offset, timestamp, key, value, tag, tags, headers);
        }
        if (size > builder.remaining()) {
            appendOversized(size, offset, timestamp, key, value, tag, tags, headers);
        } else {
            builder.append(offset, timestamp, key, value, tag, tags, headers);
        }
        nextOffset = offset + 1;
        return offset;
    }

    /** A record larger than the batch buffer gets a batch of its own (rare; allocates). */
    private void appendOversized(int size, long offset, long timestamp, byte[] key, byte[] value, CharSequence tag,
                                 List<String> tags, List<Header> headers) {
        int batchBytes = RecordBatch.HEADER_SIZE + size;
        if (batchBytes > settings.segmentBytes()) {
            throw new RecordTooLargeException(name, size, settings.segmentBytes() - RecordBatch.HEADER_SIZE);
        }
        RecordBatchBuilder single = new RecordBatchBuilder(batchBytes);
        single.append(offset, timestamp, key, value, tag, tags, headers);
        writeBatch(single);
    }

    /**
     * Writes the open batch to the active segment and applies the flush policy (writer thread).
     * Never blocks on an fsync: under {@code always} the fsync runs on a flusher thread and the high
     * watermark, {@link #awaitDurable} and the listeners follow it.
     *
     * @return the offset after the last appended record: once the high watermark reaches it,
     *         everything appended so far is durable
     */
    public long commit() {
        writePending();
        switch (settings.flush()) {
            case ALWAYS -> {
                if (flushedOffset < nextOffset) {
                    requestFlush();
                }
            }
            case INTERVAL -> {
                if (nextOffset - flushedOffset >= settings.flushMessages()) {
                    requestFlush();
                }
            }
            case NONE -> {
            }
        }
        return nextOffset;
    }

    /** Writes the open batch, without any flush (writer thread; the group-commit leader's first half). */
    long writePending() {
        checkWritable();
        if (!builder.isEmpty()) {
            writeBatch(builder);
        }
        return nextOffset;
    }

    private void writeBatch(RecordBatchBuilder batch) {
        ByteBuffer bytes = batch.seal();
        int size = bytes.remaining();
        boolean rolled;
        try {
            rolled = maybeRoll(size, batch.baseOffset(), batch.lastOffset(), batch.maxTimestamp());
            active.append(bytes, batch.baseOffset(), batch.lastOffset(), batch.firstTimestamp(), batch.maxTimestamp());
        } catch (IOException e) {
            throw fail("writing " + size + " bytes at offset " + batch.baseOffset() + " to " + active.logFile(), e);
        }
        counters.add(StorageCounter.RECORDS_APPENDED, batch.recordCount());
        counters.add(StorageCounter.BYTES_APPENDED, size);
        counters.increment(StorageCounter.BATCHES_WRITTEN);
        Segment segment = active;
        Position end = new Position(batch.lastOffset() + 1, segment.baseOffset(), segment.size());
        batch.reset();
        written = end;
        if (settings.flush() != FlushPolicy.ALWAYS) {
            advanceHighWatermark(end);
        }
        if (rolled) {
            requestFlush();
        }
    }

    private boolean maybeRoll(int batchBytes, long batchBase, long batchLast, long batchMaxTimestamp) throws IOException {
        Segment segment = active;
        if (segment.isEmpty()) {
            return false;
        }
        boolean full = (long) segment.size() + batchBytes > settings.segmentBytes();
        boolean old = segment.rollTimestamp() >= 0 && batchMaxTimestamp - segment.rollTimestamp() > settings.segmentMs();
        boolean overflow = batchLast - segment.baseOffset() > Integer.MAX_VALUE;
        if (!(full || old || overflow || segment.indexesFull())) {
            return false;
        }
        segment.onBecomeInactive();
        Segment next = Segment.create(dir, batchBase, settings, "");
        segments.put(next);
        active = next;
        counters.increment(StorageCounter.SEGMENTS_ROLLED);
        LOG.debug("Log '{}' rolled to {} ({})", name, next.logFile(),
                full ? "segment_bytes" : old ? "segment_ms" : overflow ? "offset span" : "index full");
        return true;
    }

    /**
     * Makes an empty log continue at {@code offset} (writer thread): for a caller that owns offsets
     * elsewhere, such as an exchange whose Parquet files already hold offsets below it.
     */
    public void startAt(long offset) {
        checkWritable();
        if (!builder.isEmpty() || nextOffset != logStartOffset) {
            throw new IllegalStateException("log '" + name + "' holds offsets " + logStartOffset + ".." + (nextOffset - 1)
                    + "; startAt needs an empty log");
        }
        if (offset < nextOffset) {
            throw new IllegalArgumentException("log '" + name + "': startAt(" + offset + ") would reuse offsets; next is " + nextOffset);
        }
        if (offset == nextOffset) {
            return;
        }
        structureLock.lock();
        try {
            Segment old = active;
            Segment fresh = Segment.create(dir, offset, settings, "");
            segments.put(fresh);
            active = fresh;
            nextOffset = offset;
            Position end = new Position(offset, offset, 0);
            written = end;
            flushedOffset = offset;
            highWatermark = end;
            logStartOffset = offset;
            recoveryPoint = offset;
            DurableFiles.fsyncDirectory(dir);
            writeCheckpoint();
            removeSegment(old);
        } catch (IOException e) {
            throw fail("starting at offset " + offset + " in " + dir, e);
        } finally {
            structureLock.unlock();
        }
    }

    // ---------------------------------------------------------------- flushing

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
        if (failure != null || closed) {
            return;
        }
        try {
            flush();
        } catch (StorageException e) {
            // already logged and counted by fail(); the log is offline and waiters have been woken
        }
    }

    /**
     * fsyncs everything written so far (any thread; one flush at a time). Advances the flushed
     * offset, the recovery point past rolled segments and, under {@code always}, the high watermark.
     *
     * @return the flushed offset: every offset below it is on disk
     */
    public long flush() {
        flushLock.lock();
        try {
            checkNotFailed();
            Position target = written;
            if (target.offset() <= flushedOffset && target.segmentBase() <= recoveryPoint) {
                return flushedOffset;
            }
            beforeFsync.run();
            if (target.segmentBase() != directorySyncedFor) {
                DurableFiles.fsyncDirectory(dir);
                directorySyncedFor = target.segmentBase();
            }
            Segment from = segments.floor(Math.min(flushedOffset, recoveryPoint));
            if (from == null) {
                from = segments.first(); // the segment holding that offset was trimmed away
            }
            long firstBase = from == null ? target.segmentBase() : from.baseOffset();
            for (Segment segment : segments.range(firstBase, target.segmentBase())) {
                flushSegment(segment, segment.baseOffset() < target.segmentBase());
            }
            flushedOffset = Math.max(flushedOffset, target.offset());
            if (settings.flush() == FlushPolicy.ALWAYS) {
                advanceHighWatermark(target);
            }
            if (target.segmentBase() > recoveryPoint) {
                recoveryPoint = target.segmentBase();
                writeCheckpoint();
            }
            return flushedOffset;
        } catch (IOException e) {
            throw fail("fsync of " + dir, e);
        } finally {
            flushLock.unlock();
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
            counters.increment(StorageCounter.FSYNCS);
        } finally {
            segment.release();
        }
    }

    private void advanceHighWatermark(Position end) {
        if (end.offset() <= highWatermark.offset()) {
            return;
        }
        highWatermark = end;
        for (DurabilityListener listener : listeners) {
            try {
                listener.onDurable(end.offset());
            } catch (RuntimeException e) {
                counters.increment(StorageCounter.LISTENER_FAILURES);
                if (counters.get(StorageCounter.LISTENER_FAILURES) == 1) {
                    LOG.error("Log '{}': a durability listener failed at high watermark {} (further failures are only counted)",
                            name, end.offset(), e);
                }
            }
        }
        wakeWaiters();
    }

    private void wakeWaiters() {
        if (waiters > 0) {
            waitLock.lock();
            try {
                durableChanged.signalAll();
            } finally {
                waitLock.unlock();
            }
        }
    }

    public void addDurabilityListener(DurabilityListener listener) {
        listeners.add(listener);
    }

    public void removeDurabilityListener(DurabilityListener listener) {
        listeners.remove(listener);
    }

    /**
     * Blocks until {@code offset} is below the high watermark (durable and readable), the timeout
     * passes (false), or the log fails or closes (exception).
     */
    public boolean awaitDurable(long offset, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        waitLock.lock();
        waiters++;
        try {
            while (highWatermark.offset() <= offset) {
                checkNotFailed();
                if (closed) {
                    throw new StorageException("log '" + name + "' closed while waiting for offset " + offset + " to be durable");
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

    /** Test hook: runs before each fsync pass, so a test can hold a group commit open deterministically. */
    void beforeFsync(Runnable hook) {
        this.beforeFsync = hook;
    }

    // ---------------------------------------------------------------- marks

    /** Exclusive end of what is durable under the flush policy; readers see offsets below it. */
    public long highWatermark() {
        return highWatermark.offset();
    }

    /** Exclusive end of what has been fsynced. */
    public long flushedOffset() {
        return flushedOffset;
    }

    /** First readable offset. */
    public long logStartOffset() {
        return logStartOffset;
    }

    /** Next offset the writer will assign (writer thread; others see {@link #highWatermark}). */
    public long nextOffset() {
        return nextOffset;
    }

    /** First offset whose segment is scanned after a crash. */
    public long recoveryPoint() {
        return recoveryPoint;
    }

    Position highWatermarkPosition() {
        return highWatermark;
    }

    LogSegments segments() {
        return segments;
    }

    /** Total bytes of the segment files. */
    public long sizeInBytes() {
        return segments.totalBytes();
    }

    public int segmentCount() {
        return segments.count();
    }

    // ---------------------------------------------------------------- reading

    /**
     * Records from {@code offset} on, at most {@code maxRecords} and about {@code maxBytes} of key,
     * value and tag bytes (the first record is returned even when larger, so a reader always makes
     * progress), never past the high watermark. An offset equal to the high watermark gives an empty
     * list; outside [log start, high watermark] throws {@link OffsetOutOfRangeException}.
     */
    public List<StoredRecord> read(long offset, int maxRecords, int maxBytes) {
        List<StoredRecord> records = new ArrayList<>(Math.min(Math.max(maxRecords, 0), 1024));
        long bytes = 0;
        try (LogCursor cursor = cursor(offset)) {
            while (records.size() < maxRecords && cursor.next()) {
                int size = cursor.payloadBytes();
                if (!records.isEmpty() && bytes + size > maxBytes) {
                    break;
                }
                records.add(cursor.toStoredRecord());
                bytes += size;
            }
        }
        return records;
    }

    /**
     * A sequential reader from {@code offset} up to the high watermark as it is now: the fast way to
     * replay or rebuild state from a whole log. Close it to release its segment.
     */
    public LogCursor cursor(long offset) {
        Position end = highWatermark;
        long start = logStartOffset;
        if (offset < start || offset > end.offset()) {
            throw new OffsetOutOfRangeException(name, offset, start, end.offset());
        }
        return new LogCursor(this, offset, end, -1);
    }

    /**
     * The first offset whose record has a timestamp >= {@code timestamp}; the high watermark when no
     * readable record has one. {@link #EARLIEST_TIMESTAMP} gives the log start offset and
     * {@link #LATEST_TIMESTAMP} the high watermark. Exact: timestamps need not be ordered.
     */
    public long offsetForTimestamp(long timestamp) {
        Position end = highWatermark;
        long start = logStartOffset;
        if (timestamp == EARLIEST_TIMESTAMP) {
            return start;
        }
        if (timestamp == LATEST_TIMESTAMP) {
            return end.offset();
        }
        if (timestamp < 0) {
            throw new IllegalArgumentException("log '" + name + "': timestamp must be >= 0, -1 (latest) or -2 (earliest), was "
                    + timestamp);
        }
        Segment first = segments.floor(start);
        for (Segment segment = first == null ? segments.first() : first;
             segment != null && segment.baseOffset() <= end.segmentBase();
             segment = segments.higher(segment.baseOffset())) {
            if (segment.maxTimestamp() < timestamp) {
                continue;
            }
            long from = Math.max(start, segment.timeIndex().lookup(timestamp));
            if (from >= end.offset()) {
                break;
            }
            try (LogCursor cursor = new LogCursor(this, from, end, timestamp)) {
                return cursor.next() ? cursor.offset() : end.offset();
            }
        }
        return end.offset();
    }

    /** Bytes of {@code segment} that readers bounded by {@code end} may see. */
    static int readableBytes(Segment segment, Position end) {
        if (segment.baseOffset() < end.segmentBase()) {
            return segment.size();
        }
        return segment.baseOffset() == end.segmentBase() ? end.bytePosition() : 0;
    }

    void countCorruptRead() {
        counters.increment(StorageCounter.CORRUPT_BATCHES_READ);
    }

    // ---------------------------------------------------------------- trimming, retention, compaction

    /**
     * Moves the log start offset to {@code offset} (Kafka's delete-records): the new start is
     * persisted before this returns, then segments wholly below it are deleted, never the active
     * one. A reopened log never shows the trimmed records again. Any thread.
     */
    public void deleteRecordsBefore(long offset) {
        checkNotFailed();
        long end = highWatermark.offset();
        if (offset > end || offset < 0) {
            throw new OffsetOutOfRangeException(name, offset, logStartOffset, end);
        }
        structureLock.lock();
        try {
            if (offset <= logStartOffset) {
                return;
            }
            logStartOffset = offset;
            writeCheckpoint();
            List<Segment> doomed = new ArrayList<>();
            for (Segment segment : segments.inactive()) {
                Segment next = segments.higher(segment.baseOffset());
                if (next == null || next.baseOffset() > offset) {
                    break;
                }
                doomed.add(segment);
            }
            deleteSegments(doomed, "below the log start offset " + offset);
        } catch (IOException e) {
            throw fail("moving the log start offset to " + offset, e);
        } finally {
            structureLock.unlock();
        }
    }

    /**
     * Deletes the oldest segments whose newest record is older than {@code retention_ms} at
     * {@code nowMs}, then the oldest while the log exceeds {@code retention_bytes}. Never the active
     * segment, never beyond the high watermark; only for {@code cleanup_policy = delete}.
     *
     * @return segments deleted
     */
    public int enforceRetention(long nowMs) {
        if (settings.cleanupPolicy() != CleanupPolicy.DELETE || failure != null || closed) {
            return 0;
        }
        structureLock.lock();
        try {
            List<Segment> doomed = Retention.segmentsToDelete(segments.inactive(), segments.totalBytes(), settings,
                    nowMs, highWatermark.offset(), segments);
            if (doomed.isEmpty()) {
                return 0;
            }
            Segment firstKept = segments.higher(doomed.get(doomed.size() - 1).baseOffset());
            if (firstKept.baseOffset() > logStartOffset) {
                logStartOffset = firstKept.baseOffset();
                writeCheckpoint();
            }
            deleteSegments(doomed, "retention");
            return doomed.size();
        } catch (IOException e) {
            throw fail("enforcing retention", e);
        } finally {
            structureLock.unlock();
        }
    }

    private void deleteSegments(List<Segment> doomed, String why) throws IOException {
        for (Segment segment : doomed) {
            LOG.info("Log '{}': deleting segment {} with offsets {}..{} ({})", name, segment.logFile(),
                    segment.baseOffset(), segment.nextOffset() - 1, why);
            removeSegment(segment);
            counters.increment(StorageCounter.SEGMENTS_DELETED);
        }
        DurableFiles.fsyncDirectory(dir);
    }

    private void removeSegment(Segment segment) throws IOException {
        segments.remove(segment);
        segment.markDeleted();
        segment.release();
    }

    /** Runs the cleaner when the log is compacted and dirty enough (cleaner thread). */
    void maybeCompact(long nowMs) {
        if (settings.cleanupPolicy() == CleanupPolicy.COMPACT && failure == null && !closed
                && Cleaner.dirtyRatio(this) >= settings.minCleanableDirtyRatio()) {
            compact(nowMs);
        }
    }

    /**
     * Compacts the log now, whatever its dirty ratio: keeps the latest record per key in every
     * segment below the active one and the recovery point, dropping tombstones older than
     * {@code delete_retention_ms} at {@code nowMs}. One compaction at a time per log.
     *
     * @return records removed
     */
    public synchronized long compact(long nowMs) {
        if (settings.cleanupPolicy() != CleanupPolicy.COMPACT) {
            throw new IllegalStateException("log '" + name + "' is not compacted (cleanup_policy = delete)");
        }
        checkWritable();
        try {
            return new Cleaner(this).clean(nowMs);
        } catch (IOException e) {
            throw new StorageException("log '" + name + "': compaction failed, the log is unchanged: " + e.getMessage(), e);
        }
    }

    long cleanerCheckpoint() {
        return cleanerCheckpoint;
    }

    /** Segments the cleaner may rewrite: inactive, fully flushed and below the high watermark. */
    List<Segment> cleanableSegments() {
        long limit = Math.min(recoveryPoint, highWatermark.offset());
        List<Segment> cleanable = new ArrayList<>();
        for (Segment segment : segments.inactive()) {
            Segment next = segments.higher(segment.baseOffset());
            if (next == null || next.baseOffset() > limit) {
                break;
            }
            cleanable.add(segment);
        }
        return cleanable;
    }

    /**
     * Replaces {@code replaced} (consecutive, still live) by the cleaned segment, whose files carry
     * the {@code .swap} suffix: old files are renamed to {@code .deleted} first, so the cleaned one
     * can take the first one's name. Returns false, changing nothing, when a replaced segment is no
     * longer live (trimmed meanwhile).
     */
    boolean swapIn(Segment cleaned, List<Segment> replaced, long newCleanerCheckpoint) throws IOException {
        structureLock.lock();
        try {
            for (Segment segment : replaced) {
                if (!segments.contains(segment)) {
                    return false;
                }
            }
            for (Segment segment : replaced) {
                segment.markDeleted();
            }
            cleaned.changeSuffix(Segment.SWAP_SUFFIX, "");
            DurableFiles.fsyncDirectory(dir);
            segments.put(cleaned);
            for (Segment segment : replaced) {
                if (segment.baseOffset() != cleaned.baseOffset()) {
                    segments.remove(segment);
                }
                segment.release();
            }
            cleanerCheckpoint = Math.max(cleanerCheckpoint, newCleanerCheckpoint);
            writeCheckpoint();
            return true;
        } finally {
            structureLock.unlock();
        }
    }

    void advanceCleanerCheckpoint(long offset) throws IOException {
        if (offset > cleanerCheckpoint) {
            cleanerCheckpoint = offset;
            writeCheckpoint();
        }
    }

    void countCleaning(long removed) {
        counters.increment(StorageCounter.CLEANER_RUNS);
        counters.add(StorageCounter.CLEANER_RECORDS_REMOVED, removed);
    }

    private void writeCheckpoint() throws IOException {
        synchronized (checkpointLock) {
            new LogCheckpoint(recoveryPoint, logStartOffset, cleanerCheckpoint).write(dir);
        }
    }

    // ---------------------------------------------------------------- failure and close

    private void checkWritable() {
        checkNotFailed();
        if (closed) {
            throw new StorageException("log '" + name + "' is closed");
        }
    }

    private void checkNotFailed() {
        Throwable cause = failure;
        if (cause != null) {
            throw new LogOfflineException(name, cause);
        }
    }

    /** Takes the log offline after an I/O failure; returns the exception to throw. */
    private StorageException fail(String what, IOException e) {
        StorageException error = new StorageException("log '" + name + "': " + what + " failed: " + e.getMessage(), e);
        if (failure == null) {
            failure = error;
            counters.increment(StorageCounter.IO_FAILURES);
            LOG.error("Log '{}' in {} goes offline: {} failed", name, dir, what, e);
        }
        waitLock.lock();
        try {
            durableChanged.signalAll();
        } finally {
            waitLock.unlock();
        }
        return error;
    }

    /**
     * Closes the log cleanly (after the writer has stopped): writes the open batch, fsyncs
     * everything, trims the active segment's indexes, checkpoints the end as recovery point and
     * leaves the clean-shutdown marker so the next open skips the scan.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        scheduler.unregister(this);
        if (intervalFlush != null) {
            intervalFlush.cancel(false);
        }
        try {
            if (failure == null) {
                writePending();
                flush();
                closed = true;
                closeCleanly();
            }
        } catch (IOException e) {
            LOG.error("Log '{}': clean close of {} failed; the next open recovers it", name, dir, e);
        } finally {
            closed = true;
            wakeWaiters();
            synchronized (this) {
                for (Segment segment : segments.all()) {
                    segment.release();
                }
            }
            try {
                lock.release();
                lockChannel.close();
            } catch (IOException e) {
                LOG.warn("Log '{}': releasing the lock of {} failed", name, dir, e);
            }
            if (ownsScheduler) {
                scheduler.close();
            }
        }
    }

    private void closeCleanly() throws IOException {
        flushLock.lock();
        try {
            Segment last = active;
            last.onBecomeInactive();
            last.flush();
            recoveryPoint = nextOffset;
            writeCheckpoint();
            Files.createFile(dir.resolve(LogLoader.CLEAN_SHUTDOWN_FILE));
            DurableFiles.fsyncDirectory(dir);
        } finally {
            flushLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "Log[" + name + ", " + dir + ", offsets " + logStartOffset + ".." + (highWatermark.offset() - 1) + "]";
    }
}
