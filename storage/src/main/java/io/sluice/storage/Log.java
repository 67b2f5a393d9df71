package io.sluice.storage;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.sluice.storage.segment.SegmentLog;

/**
 * A segmented append-only log in a directory of its own, for a caller that is its one writer and
 * owns its offsets, such as an exchange's write-ahead log. Shards are reached through
 * {@link StorageAdapter} instead. The segment engine implements it; open one with {@link #open}.
 * The implementation may gain methods, so do not implement it outside this module.
 *
 * <h2>Offsets</h2>
 * Offsets start at 0 (or at {@link #startAt}) and continue across restarts. Three marks move
 * forward: the log start offset (first readable), the high watermark (exclusive end of what is
 * durable under the flush policy and so readable), and the next offset the writer assigns.
 *
 * <h2>Threads</h2>
 * <ul>
 *  <li>Writer methods ({@link #append}, {@link #commit}, {@link #startAt}) belong to one thread at a
 *      time, like a single-producer sequencer: they take no lock and allocate nothing per record.</li>
 *  <li>Readers ({@link #read}, {@link #cursor}, {@link #offsetForTimestamp}) run on any thread, never
 *      see past the high watermark, and never block the writer.</li>
 *  <li>Everything else runs on any thread.</li>
 * </ul>
 *
 * <h2>Durability</h2>
 * Appended records sit in the open batch until {@link #commit} (or until the batch fills) writes
 * them to the log. Under {@code none} and {@code interval} the high watermark then moves at once;
 * under {@code always} it moves when the fsync that covers them completes, and
 * {@link DurabilityListener}s hear of it. A failed fsync takes the log offline for good
 * ({@link LogOfflineException}): after it the page cache's state is unknown. A failed write that
 * changed nothing (a full disk) does not: {@link #commit} throws {@link LogWriteException}, the open
 * batch stays as it was, and the next commit writes it again, so the log comes back by itself once
 * the disk takes writes again.
 */
public interface Log extends AutoCloseable {
    /** {@link #offsetForTimestamp} sentinel: the log start offset. */
    long EARLIEST_TIMESTAMP = -2;
    /** {@link #offsetForTimestamp} sentinel: the high watermark. */
    long LATEST_TIMESTAMP = -1;

    /**
     * Opens (creating if needed) the log in {@code dir}, recovering it if it was not closed cleanly.
     *
     * @param name      the log's name in messages and thread names (an exchange or shard name)
     * @param scheduler flusher and cleaner threads, shared with other logs and closed by the caller
     * @throws StorageException naming the log and the directory when it cannot be opened
     */
    static Log open(Path dir, String name, LogSettings settings, LogScheduler scheduler) {
        return SegmentLog.open(dir, name, settings, scheduler);
    }

    /** Opens the log with a scheduler of its own, closed with the log. */
    static Log open(Path dir, String name, LogSettings settings) {
        return SegmentLog.open(dir, name, settings);
    }

    String name();

    Path directory();

    LogSettings settings();

    /** Appends, fsyncs, segments, failures... of this log. */
    StorageCounters counters();

    /**
     * Appends a record to the open batch and returns its offset (writer thread). The record becomes
     * durable and readable after {@link #commit}. Allocates nothing.
     *
     * @param key   may be null (not in a compacted log)
     * @param value may be null: with a key, a tombstone
     * @param tag   may be null: no tag
     * @throws RecordTooLargeException when the record cannot fit a segment
     * @throws LogWriteException when the open batch was full and writing it failed; the record is not appended
     */
    long append(long timestamp, byte[] key, byte[] value, CharSequence tag);

    /** Appends a record without tags; see {@link #append(long, byte[], byte[], CharSequence)}. */
    long append(long timestamp, byte[] key, byte[] value);

    /** Appends a record with any number of tags; see {@link #append(long, byte[], byte[], CharSequence)}. */
    long append(Record record);

    /**
     * Writes the open batch and applies the flush policy (writer thread). Never blocks on an fsync:
     * under {@code always} the fsync runs on a flusher thread and the high watermark,
     * {@link #awaitDurable} and the listeners follow it.
     *
     * @return the offset after the last appended record: once the high watermark reaches it,
     *         everything appended so far is durable
     * @throws LogWriteException when the write failed and changed nothing; the batch is written at the next commit
     * @throws LogOfflineException when the log failed for good
     */
    long commit();

    /**
     * Makes an empty log continue at {@code offset} (writer thread): for a caller that owns offsets
     * elsewhere, such as an exchange whose Parquet files already hold offsets below it.
     */
    void startAt(long offset);

    /**
     * fsyncs everything written so far (any thread; one flush at a time).
     *
     * @return the flushed offset: every offset below it is on disk
     */
    long flush();

    /** Calls {@code listener} each time the high watermark advances, until the log closes. */
    void addDurabilityListener(DurabilityListener listener);

    /**
     * Blocks until {@code offset} is below the high watermark (durable and readable), the timeout
     * passes (false), or the log fails or closes (exception).
     */
    boolean awaitDurable(long offset, long timeout, TimeUnit unit) throws InterruptedException;

    /** Exclusive end of what is durable under the flush policy; readers see offsets below it. */
    long highWatermark();

    /** Exclusive end of what has been fsynced. */
    long flushedOffset();

    /** First readable offset. */
    long logStartOffset();

    /** Next offset the writer will assign (writer thread; others see {@link #highWatermark}). */
    long nextOffset();

    /**
     * Records from {@code offset} on, at most {@code maxRecords} and about {@code maxBytes} of key,
     * value and tag bytes (the first record is returned even when larger, so a reader always makes
     * progress), never past the high watermark. An offset equal to the high watermark gives an empty
     * list; outside [log start, high watermark] throws {@link OffsetOutOfRangeException}.
     */
    List<StoredRecord> read(long offset, int maxRecords, int maxBytes);

    /**
     * A sequential reader from {@code offset} up to the high watermark as it is now: the fast way to
     * replay or rebuild state from a whole log. Close it when done.
     *
     * @throws OffsetOutOfRangeException outside [log start, high watermark]
     */
    LogCursor cursor(long offset);

    /**
     * The first offset whose record has a timestamp >= {@code timestamp}; the high watermark when no
     * readable record has one. {@link #EARLIEST_TIMESTAMP} gives the log start offset and
     * {@link #LATEST_TIMESTAMP} the high watermark. Exact: timestamps need not be ordered.
     */
    long offsetForTimestamp(long timestamp);

    /**
     * Moves the log start offset to {@code offset} (Kafka's delete-records): the new start is
     * persisted before this returns, then whole segments below it are deleted. A reopened log never
     * shows the trimmed records again.
     *
     * @throws OffsetOutOfRangeException when {@code offset} is negative or past the high watermark
     */
    void deleteRecordsBefore(long offset);

    /**
     * Closes the log cleanly (after the writer has stopped): writes the open batch, fsyncs
     * everything and leaves the files ready for a fast reopen. Waits for a retention or compaction
     * pass that is running on the log.
     */
    @Override
    void close();
}
