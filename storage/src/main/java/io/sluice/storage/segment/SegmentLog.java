package io.sluice.storage.segment;

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
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.DurabilityListener;
import io.sluice.storage.Header;
import io.sluice.storage.Log;
import io.sluice.storage.LogCursor;
import io.sluice.storage.LogOfflineException;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.LogWriteException;
import io.sluice.storage.LogSettings;
import io.sluice.storage.OffsetOutOfRangeException;
import io.sluice.storage.Record;
import io.sluice.storage.RecordBatchVisitor;
import io.sluice.storage.RecordFlyweight;
import io.sluice.storage.RecordTooLargeException;
import io.sluice.storage.StorageCounter;
import io.sluice.storage.StorageCounters;
import io.sluice.storage.StorageException;
import io.sluice.storage.StoredRecord;

/**
 * The segment engine's {@link Log} (offsets, threads and durability are described there): record
 * batches in segment files named by base offset, sparse offset and time indexes, rolled by size and
 * age. The parts of its work live beside it:
 * <ul>
 *  <li>{@link LogLoader} opens the directory and recovers it after a crash;</li>
 *  <li>{@link LogFlusher} applies the flush policy and moves the high watermark;</li>
 *  <li>{@link Retention} chooses the segments retention deletes, {@link Cleaner} compacts by key;
 *      both run in {@link #maintain} on the {@link LogScheduler}'s cleaner thread;</li>
 *  <li>{@link SegmentLogCursor} reads.</li>
 * </ul>
 * This class writes batches, rolls segments, and owns the segment set and the checkpoint.
 *
 * <h2>Locks</h2>
 * What each guards, in the order a thread that holds several takes them. The writer thread takes
 * none, but {@code structureLock} in {@link #startAt}.
 * <ol>
 *  <li>{@code maintenanceLock}: the retention and compaction passes, one at a time; {@link #close}
 *      holds it too, so no pass runs during or after a close.</li>
 *  <li>{@code structureLock}: the segment set (but the writer's roll), the log start offset, the
 *      cleaner checkpoint, and the release of every segment at close.</li>
 *  <li>{@code LogFlusher.flushLock}: the fsync pass, one at a time, with the flushed offset and the
 *      recovery point.</li>
 *  <li>{@code checkpointLock}: the checkpoint file.</li>
 *  <li>{@code LogFlusher.waitLock}: the condition {@link #awaitDurable} callers sleep on.</li>
 * </ol>
 * {@link SharedAppender}'s lock comes before all of them. Durability listeners run under
 * {@code flushLock} (or on the writer thread), so they must not call back into the log's writer.
 */
public final class SegmentLog implements Log, LogScheduler.Maintained {
    /** Largest batch the writer builds; larger records get a batch of their own. */
    static final int MAX_BATCH_BYTES = 1024 * 1024;
    private static final String LOCK_FILE = ".lock";
    private static final Logger LOG = LoggerFactory.getLogger(SegmentLog.class);

    /** A mark in the log: an offset and the byte where it begins in the segment with base {@code segmentBase}. */
    record Position(long offset, long segmentBase, int bytePosition) {

        /** Bytes of {@code segment} that readers bounded by this mark may see. */
        int readableBytes(Segment segment) {
            if (segment.baseOffset() < segmentBase) {
                return segment.size();
            }
            return segment.baseOffset() == segmentBase ? bytePosition : 0;
        }
    }

    private final String name;
    private final Path dir;
    private final LogSettings settings;
    private final LogScheduler scheduler;
    private final boolean ownsScheduler;
    private final StorageCounters counters = new StorageCounters();
    /** Writer only, like the batch builder. */
    private final TagCache tagCache = new TagCache();
    private final LogSegments segments;
    private final RecoveryReport recoveryReport;
    private final FileChannel lockChannel;
    private final FileLock directoryLock;
    private final LogFlusher flusher;

    // Locks, in the order they are taken (see the class comment).
    /** Guards the retention and compaction passes, one at a time, and close. */
    private final ReentrantLock maintenanceLock = new ReentrantLock();
    /** Guards the segment set (but the roll), logStartOffset, cleanerCheckpoint and the release at close. */
    private final ReentrantLock structureLock = new ReentrantLock();
    /** Guards the checkpoint file. */
    private final Object checkpointLock = new Object();

    // Writer thread only.
    private final RecordBatchBuilder builder;
    private long nextOffset;
    /** A roll happened whose segment no written batch has reported to the flusher yet (the write after it failed). */
    private boolean rolledUnflushed;
    /** Failed attempts to write the open batch since the last write that succeeded. */
    private long writeFailures;

    private volatile Segment active;
    private volatile long logStartOffset;
    private volatile long cleanerCheckpoint;
    private volatile Throwable failure;
    private volatile boolean closed;
    private volatile Runnable beforeSegmentsDeleted = () -> { };

    private SegmentLog(Path dir, String name, LogSettings settings, LogScheduler scheduler, boolean ownsScheduler)
            throws IOException {
        this.dir = dir;
        this.name = name;
        this.settings = settings;
        this.scheduler = scheduler;
        this.ownsScheduler = ownsScheduler;
        Files.createDirectories(dir);
        this.lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        this.directoryLock = lockDirectory();
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
        this.cleanerCheckpoint = loaded.cleanerCheckpoint();
        this.active = segments.last();
        this.nextOffset = active.nextOffset();
        this.builder = new RecordBatchBuilder(Math.min(MAX_BATCH_BYTES, settings.segmentBytes()));
        this.flusher = new LogFlusher(this, scheduler, new Position(nextOffset, active.baseOffset(), active.size()),
                loaded.recoveryPoint());
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

    /** See {@link Log#open(Path, String, LogSettings, LogScheduler)}. */
    public static SegmentLog open(Path dir, String name, LogSettings settings, LogScheduler scheduler) {
        try {
            return new SegmentLog(dir, name, settings, scheduler, false);
        } catch (IOException e) {
            throw new StorageException("log '" + name + "': opening " + dir + " failed: " + e.getMessage(), e);
        }
    }

    /** See {@link Log#open(Path, String, LogSettings)}. */
    public static SegmentLog open(Path dir, String name, LogSettings settings) {
        LogScheduler own = new LogScheduler(name);
        try {
            return new SegmentLog(dir, name, settings, own, true);
        } catch (IOException | RuntimeException e) {
            own.close();
            if (e instanceof StorageException se) {
                throw se;
            }
            throw new StorageException("log '" + name + "': opening " + dir + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Path directory() {
        return dir;
    }

    @Override
    public LogSettings settings() {
        return settings;
    }

    @Override
    public StorageCounters counters() {
        return counters;
    }

    /** What the open found and repaired. */
    public RecoveryReport recoveryReport() {
        return recoveryReport;
    }

    // ---------------------------------------------------------------- writer

    @Override
    public long append(long timestamp, byte[] key, byte[] value, CharSequence tag) {
        return append0(timestamp, key, value, tag, List.of(), List.of());
    }

    @Override
    public long append(long timestamp, byte[] key, byte[] value) {
        return append0(timestamp, key, value, null, List.of(), List.of());
    }

    @Override
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
        byte[] tagBytes = tag == null ? null : tagCache.utf8(tag);
        long offset = nextOffset;
        int size = builder.sizeIfAppended(offset, timestamp, key, value, tagBytes, tags, headers);
        if (size > builder.remaining() && !builder.isEmpty()) {
            writeBatch(builder);
            size = builder.sizeIfAppended(offset, timestamp, key, value, tagBytes, tags, headers);
        }
        if (size > builder.remaining()) {
            appendOversized(size, offset, timestamp, key, value, tagBytes, tags, headers);
        } else {
            builder.append(offset, timestamp, key, value, tagBytes, tags, headers);
        }
        nextOffset = offset + 1;
        return offset;
    }

    /** A record larger than the batch buffer gets a batch of its own (rare; allocates). */
    private void appendOversized(int size, long offset, long timestamp, byte[] key, byte[] value, byte[] tag,
                                 List<String> tags, List<Header> headers) {
        int batchBytes = RecordBatch.KAFKA_HEADER_SIZE + size;
        if (batchBytes > settings.segmentBytes()) {
            throw new RecordTooLargeException(name, size, settings.segmentBytes() - RecordBatch.KAFKA_HEADER_SIZE);
        }
        RecordBatchBuilder single = new RecordBatchBuilder(batchBytes);
        single.append(offset, timestamp, key, value, tag, tags, headers);
        writeBatch(single);
    }

    @Override
    public long commit() {
        writePending();
        flusher.committed(nextOffset);
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

    /**
     * Writes a batch to the active segment, rolling first if due. A write that failed but left the
     * segment as it was (a full disk) keeps the batch open and throws {@link LogWriteException}: the
     * next commit writes it again. Any other I/O failure takes the log offline, and so does an
     * unexpected exception or error, which is rethrown as it is.
     */
    private void writeBatch(RecordBatchBuilder batch) {
        ByteBuffer bytes = batch.seal();
        int size = bytes.remaining();
        try {
            rolledUnflushed |= maybeRoll(size, batch.baseOffset(), batch.lastOffset(), batch.maxTimestamp());
            active.append(bytes, batch.baseOffset(), batch.lastOffset(), batch.firstTimestamp(), batch.maxTimestamp());
        } catch (Segment.WriteFailed e) {
            batch.unseal();
            throw writeFailed("writing " + size + " bytes at offset " + batch.baseOffset() + " to " + active.logFile(), e);
        } catch (IOException e) {
            throw fail("writing " + size + " bytes at offset " + batch.baseOffset() + " to " + active.logFile(), e);
        } catch (RuntimeException | Error e) {
            // Unexpected (the InternalError of a faulting mapped write, a bug): what reached the segment is
            // unknown, so the log goes offline as after an I/O failure, and the caller gets the error itself.
            fail("writing " + size + " bytes at offset " + batch.baseOffset() + " to " + active.logFile(), e);
            throw e;
        }
        if (writeFailures > 0) {
            LOG.info("Log '{}' in {} writes again after {} failed attempts", name, dir, writeFailures);
            writeFailures = 0;
        }
        counters.add(StorageCounter.RECORDS_APPENDED, batch.recordCount());
        counters.add(StorageCounter.BYTES_APPENDED, size);
        counters.increment(StorageCounter.BATCHES_WRITTEN);
        Segment segment = active;
        Position end = new Position(batch.lastOffset() + 1, segment.baseOffset(), segment.size());
        batch.reset();
        boolean rolled = rolledUnflushed;
        rolledUnflushed = false;
        flusher.batchWritten(end, rolled);
    }

    /** Counts a write that failed without harm; logged at its first attempt only, as it is retried at each commit. */
    private LogWriteException writeFailed(String what, IOException e) {
        counters.increment(StorageCounter.WRITE_FAILURES);
        if (writeFailures++ == 0) {
            LOG.error("Log '{}' in {}: {} failed; the batch stays open and is written again at the next commit", name, dir,
                    what, e);
        }
        return new LogWriteException("log '" + name + "': " + what + " failed: " + e.getMessage(), e);
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

    @Override
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
            flusher.restartAt(offset);
            logStartOffset = offset;
            DurableFiles.fsyncDirectory(dir);
            writeCheckpoint();
            removeSegment(old);
        } catch (IOException e) {
            throw fail("starting at offset " + offset + " in " + dir, e);
        } finally {
            structureLock.unlock();
        }
    }

    // ---------------------------------------------------------------- durability (LogFlusher)

    @Override
    public long flush() {
        return flusher.flush();
    }

    @Override
    public void addDurabilityListener(DurabilityListener listener) {
        flusher.addListener(listener);
    }

    @Override
    public boolean awaitDurable(long offset, long timeout, TimeUnit unit) throws InterruptedException {
        return flusher.awaitDurable(offset, timeout, unit);
    }

    /** Test hook: runs before each fsync pass, so a test can hold a group commit open deterministically. */
    void beforeFsync(Runnable hook) {
        flusher.beforeFsync(hook);
    }

    // ---------------------------------------------------------------- marks

    @Override
    public long highWatermark() {
        return flusher.highWatermark().offset();
    }

    @Override
    public long flushedOffset() {
        return flusher.flushedOffset();
    }

    @Override
    public long logStartOffset() {
        return logStartOffset;
    }

    @Override
    public long nextOffset() {
        return nextOffset;
    }

    /** First offset whose segment is scanned after a crash. */
    public long recoveryPoint() {
        return flusher.recoveryPoint();
    }

    /** First offset the cleaner has not compacted. */
    long cleanerCheckpoint() {
        return cleanerCheckpoint;
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

    @Override
    public List<StoredRecord> read(long offset, int maxRecords, int maxBytes) {
        List<StoredRecord> records = new ArrayList<>(Math.min(Math.max(maxRecords, 0), 1024));
        visit(offset, maxRecords, maxBytes, view -> records.add(new StoredRecord(view.offset(), view.toRecord())));
        return records;
    }

    /**
     * The records {@link #read(long, int, int)} gives, each handed to {@code visitor} in place (the
     * cursor's own view, valid during the call, nothing copied); returns how many.
     */
    public int read(long offset, int maxRecords, int maxBytes, Consumer<RecordFlyweight> visitor) {
        return visit(offset, maxRecords, maxBytes, visitor);
    }

    /**
     * A {@link RecordBatchVisitor} gets every Kafka-layout batch whole: its records count against the
     * limits together, and a batch that would pass them ends the read unless it is the first.
     */
    private int visit(long offset, int maxRecords, int maxBytes, Consumer<? super RecordView> visitor) {
        RecordBatchVisitor batchVisitor = visitor instanceof RecordBatchVisitor whole ? whole : null;
        int count = 0;
        long bytes = 0;
        try (SegmentLogCursor cursor = openCursor(offset)) {
            while (count < maxRecords) {
                if (batchVisitor != null && cursor.nextWholeBatch()) {
                    int records = cursor.wholeBatchRecords();
                    int size = cursor.wholeBatchBytes();
                    if (count > 0 && (bytes + size > maxBytes || count + records > maxRecords)) {
                        break;
                    }
                    cursor.handOutWholeBatch(batchVisitor);
                    count += records;
                    bytes += size;
                    continue;
                }
                if (!cursor.next()) {
                    break;
                }
                int size = cursor.payloadBytes();
                if (count > 0 && bytes + size > maxBytes) {
                    break;
                }
                visitor.accept(cursor.view());
                count++;
                bytes += size;
            }
        }
        return count;
    }

    @Override
    public LogCursor cursor(long offset) {
        return openCursor(offset);
    }

    /** Holds a reference to the segment it reads, so retention or compaction cannot close the file under it. */
    private SegmentLogCursor openCursor(long offset) {
        Position end = flusher.highWatermark();
        long start = logStartOffset;
        if (offset < start || offset > end.offset()) {
            throw new OffsetOutOfRangeException(name, offset, start, end.offset());
        }
        return new SegmentLogCursor(this, offset, end, -1);
    }

    @Override
    public long offsetForTimestamp(long timestamp) {
        Position end = flusher.highWatermark();
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
            try (LogCursor cursor = new SegmentLogCursor(this, from, end, timestamp)) {
                return cursor.next() ? cursor.offset() : end.offset();
            }
        }
        return end.offset();
    }

    void countCorruptRead() {
        counters.increment(StorageCounter.CORRUPT_BATCHES_READ);
    }

    // ---------------------------------------------------------------- trimming

    /** Never deletes the active segment. Any thread. */
    @Override
    public void deleteRecordsBefore(long offset) {
        checkNotFailed();
        long end = highWatermark();
        if (offset > end || offset < 0) {
            throw new OffsetOutOfRangeException(name, offset, logStartOffset, end);
        }
        moveStartTo(offset, "below the log start offset " + offset);
    }

    /**
     * Moves the log start offset up to {@code offset} (persisted first), then deletes the segments
     * wholly below it: what {@link #deleteRecordsBefore} and retention do. Does nothing when the log
     * already starts there or later.
     *
     * @return segments deleted
     */
    int moveStartTo(long offset, String why) {
        structureLock.lock();
        try {
            checkWritable();
            if (offset <= logStartOffset) {
                return 0;
            }
            try {
                writeCheckpoint(offset);
            } catch (IOException e) {
                throw new StorageException("log '" + name + "': cannot move the log start offset to " + offset
                        + ": writing the checkpoint in " + dir + " failed, so nothing changed: " + e.getMessage(), e);
            }
            logStartOffset = offset;
            List<Segment> doomed = segments.below(offset);
            beforeSegmentsDeleted.run();
            for (Segment segment : doomed) {
                LOG.info("Log '{}': deleting segment {} with offsets {}..{} ({})", name, segment.logFile(),
                        segment.baseOffset(), segment.nextOffset() - 1, why);
                removeSegment(segment);
                counters.increment(StorageCounter.SEGMENTS_DELETED);
            }
            DurableFiles.fsyncDirectory(dir);
            return doomed.size();
        } catch (IOException e) {
            throw fail("moving the log start offset to " + offset, e);
        } finally {
            structureLock.unlock();
        }
    }

    /** Test hook: runs once the log start offset is persisted, before the segments below it are deleted. */
    void beforeSegmentsDeleted(Runnable hook) {
        this.beforeSegmentsDeleted = hook;
    }

    private void removeSegment(Segment segment) throws IOException {
        segments.remove(segment);
        segment.markDeleted();
        segment.release();
    }

    // ---------------------------------------------------------------- retention and compaction (Retention, Cleaner)

    /** Retention for a {@code delete} log, compaction when dirty enough for a {@code compact} one (cleaner thread). */
    @Override
    public void maintain(long nowMs) {
        maintenanceLock.lock();
        try {
            if (!isOpen()) {
                return;
            }
            if (settings.cleanupPolicy() == CleanupPolicy.DELETE) {
                Retention.enforce(this, nowMs);
            } else if (Cleaner.dirtyRatio(this) >= settings.minCleanableDirtyRatio()) {
                compactNow(nowMs);
            }
        } finally {
            maintenanceLock.unlock();
        }
    }

    /**
     * Runs retention now (see {@link Retention}); only for {@code cleanup_policy = delete}.
     *
     * @return segments deleted
     */
    public int enforceRetention(long nowMs) {
        maintenanceLock.lock();
        try {
            if (settings.cleanupPolicy() != CleanupPolicy.DELETE || !isOpen()) {
                return 0;
            }
            return Retention.enforce(this, nowMs);
        } finally {
            maintenanceLock.unlock();
        }
    }

    /**
     * Compacts the log now, whatever its dirty ratio (see {@link Cleaner}), dropping tombstones older
     * than {@code delete_retention_ms} at {@code nowMs}.
     *
     * @return records removed
     */
    public long compact(long nowMs) {
        if (settings.cleanupPolicy() != CleanupPolicy.COMPACT) {
            throw new IllegalStateException("log '" + name + "' is not compacted (cleanup_policy = delete)");
        }
        maintenanceLock.lock();
        try {
            checkWritable();
            return compactNow(nowMs);
        } finally {
            maintenanceLock.unlock();
        }
    }

    private long compactNow(long nowMs) {
        try {
            return new Cleaner(this).clean(nowMs);
        } catch (IOException e) {
            throw new StorageException("log '" + name + "': compaction failed, the log is unchanged: " + e.getMessage(), e);
        }
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
        structureLock.lock();
        try {
            if (offset > cleanerCheckpoint) {
                cleanerCheckpoint = offset;
                writeCheckpoint();
            }
        } finally {
            structureLock.unlock();
        }
    }

    void writeCheckpoint() throws IOException {
        writeCheckpoint(logStartOffset);
    }

    private void writeCheckpoint(long startOffset) throws IOException {
        synchronized (checkpointLock) {
            new LogCheckpoint(flusher.recoveryPoint(), startOffset, cleanerCheckpoint).write(dir);
        }
    }

    // ---------------------------------------------------------------- failure and close

    /** Neither failed nor closed. */
    boolean isOpen() {
        return failure == null && !closed;
    }

    boolean isClosed() {
        return closed;
    }

    private void checkWritable() {
        checkNotFailed();
        if (closed) {
            throw new StorageException("log '" + name + "' is closed");
        }
    }

    void checkNotFailed() {
        Throwable cause = failure;
        if (cause != null) {
            throw new LogOfflineException(name, cause);
        }
    }

    /** Takes the log offline after an I/O failure (or an unexpected one); returns the exception to throw. */
    StorageException fail(String what, Throwable e) {
        String cause = e instanceof IOException ? e.getMessage() : e.toString();
        StorageException error = new StorageException("log '" + name + "': " + what + " failed: " + cause, e);
        if (failure == null) {
            failure = error;
            counters.increment(StorageCounter.IO_FAILURES);
            LOG.error("Log '{}' in {} goes offline: {} failed", name, dir, what, e);
        }
        flusher.wakeWaiters();
        return error;
    }

    /**
     * Closes the log cleanly (after the writer has stopped): waits for a running retention or
     * compaction pass, writes the open batch, fsyncs everything, trims the active segment's indexes,
     * checkpoints the end as recovery point and leaves the clean-shutdown marker so the next open
     * skips the scan.
     */
    @Override
    public void close() {
        maintenanceLock.lock();
        try {
            if (closed) {
                return;
            }
            scheduler.unregister(this);
            flusher.stop();
            finishAndRelease();
        } finally {
            maintenanceLock.unlock();
            if (ownsScheduler) {
                scheduler.close(); // outside the lock: its cleaner thread may be waiting for the lock
            }
        }
    }

    private void finishAndRelease() {
        try {
            if (failure == null) {
                writePending();
                flusher.flush();
                closed = true;
                flusher.flushAndMarkClean(active, nextOffset);
            }
        } catch (IOException | StorageException e) {
            // A batch that could not be written (a full disk) was never durable, so never acknowledged.
            LOG.error("Log '{}': clean close of {} failed; the next open recovers it", name, dir, e);
        } finally {
            structureLock.lock();
            try {
                closed = true;
                for (Segment segment : segments.all()) {
                    segment.release();
                }
            } finally {
                structureLock.unlock();
            }
            flusher.wakeWaiters();
            try {
                directoryLock.release();
                lockChannel.close();
            } catch (IOException e) {
                LOG.warn("Log '{}': releasing the lock of {} failed", name, dir, e);
            }
        }
    }

    @Override
    public String toString() {
        return "Log[" + name + ", " + dir + ", offsets " + logStartOffset + ".." + (highWatermark() - 1) + "]";
    }
}
