package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

import io.sluice.storage.CorruptRecordException;
import io.sluice.storage.Header;
import io.sluice.storage.Record;
import io.sluice.storage.StorageException;
import io.sluice.storage.StoredRecord;

/**
 * Reads a log's records in offset order from a start offset up to the high watermark it was
 * created with: {@code while (cursor.next()) { cursor.offset(); cursor.value(); ... }}. Large
 * positional reads and no per-record allocation unless the caller copies a key or value, so a full
 * scan to rebuild state is fast. Holds a reference to its current segment, so retention or
 * compaction cannot close the file under it; if the start was trimmed meanwhile, it continues at
 * the first record still present. One thread; close it when done.
 */
public final class LogCursor implements AutoCloseable {
    private final Log log;
    private final Log.Position end;
    private final long from;
    private final long minTimestamp;
    private final RecordView record = new RecordView();
    private Segment segment;
    private BatchIterator batches;
    private int recordIndex;
    private int recordsLeft;
    private int batchEnd;
    private long batchBase;
    private long batchFirstTimestamp;
    private boolean done;

    /**
     * @param minTimestamp skip batches and records with older timestamps (-1: none), for
     *                     offset-for-timestamp lookups
     */
    LogCursor(Log log, long from, Log.Position end, long minTimestamp) {
        this.log = log;
        this.from = from;
        this.end = end;
        this.minTimestamp = minTimestamp;
    }

    /** Moves to the next record; false at the end. */
    public boolean next() {
        while (!done) {
            if (recordsLeft > 0) {
                recordsLeft--;
                parseRecord();
                if (record.offset() >= end.offset()) {
                    return finish();
                }
                if (record.offset() >= from && record.timestamp() >= minTimestamp) {
                    return true;
                }
            } else if (!nextBatch()) {
                return finish();
            }
        }
        return false;
    }

    private void parseRecord() {
        try {
            recordIndex = record.parse(batches.buffer(), recordIndex, batchEnd, batchBase, batchFirstTimestamp);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            log.countCorruptRead();
            throw new CorruptRecordException(segment.logFile(), batches.batchPosition(), "unreadable record: " + e.getMessage());
        }
    }

    private boolean nextBatch() {
        try {
            while (true) {
                if (batches == null && !openSegment(segment == null ? startSegment() : nextSegment())) {
                    return false;
                }
                if (batches.next()) {
                    if (acceptBatch()) {
                        return true;
                    }
                    continue;
                }
                if (batches.stop() != BatchIterator.Stop.END) {
                    log.countCorruptRead();
                    throw new CorruptRecordException(segment.logFile(), batches.validEnd(),
                            batches.stop() + " below the high watermark: " + batches.detail());
                }
                batches = null;
            }
        } catch (IOException e) {
            throw new StorageException("log '" + log.name() + "': reading " + segment.logFile() + " failed: " + e.getMessage(), e);
        }
    }

    /** Sets up the records of the current batch; false to skip it. */
    private boolean acceptBatch() {
        ByteBuffer buffer = batches.buffer();
        int index = batches.batchIndex();
        long base = RecordBatch.baseOffset(buffer, index);
        if (base >= end.offset()) {
            done = true;
            return false;
        }
        if (RecordBatch.lastOffset(buffer, index) < from || RecordBatch.maxTimestamp(buffer, index) < minTimestamp
                || RecordBatch.recordCount(buffer, index) == 0) {
            return false;
        }
        batchBase = base;
        batchFirstTimestamp = RecordBatch.firstTimestamp(buffer, index);
        recordsLeft = RecordBatch.recordCount(buffer, index);
        recordIndex = index + RecordBatch.RECORDS_OFFSET;
        batchEnd = index + RecordBatch.sizeInBytes(buffer, index);
        return true;
    }

    private Segment startSegment() {
        Segment first = log.segments().floor(from);
        return first != null ? first : log.segments().first();
    }

    private Segment nextSegment() {
        long base = segment.baseOffset();
        segment.release();
        segment = null;
        return log.segments().higher(base);
    }

    /** Claims {@code candidate} (or a later live one) and starts its batches; false past the end. */
    private boolean openSegment(Segment candidate) {
        while (candidate != null && candidate.baseOffset() <= end.segmentBase()) {
            if (candidate.tryRetain()) {
                segment = candidate;
                int limit = Log.readableBytes(candidate, end);
                long start = candidate.baseOffset() < from ? candidate.positionFor(from) : 0;
                batches = candidate.iterator(Math.min(start, limit), limit, true);
                return true;
            }
            candidate = log.segments().higher(candidate.baseOffset());
        }
        return false;
    }

    private boolean finish() {
        done = true;
        return false;
    }

    public long offset() {
        return record.offset();
    }

    public long timestamp() {
        return record.timestamp();
    }

    public boolean hasKey() {
        return record.hasKey();
    }

    /** A record with a key and no value. */
    public boolean isTombstone() {
        return record.hasKey() && !record.hasValue();
    }

    /** A copy of the key, or null. */
    public byte[] key() {
        return record.key();
    }

    /** A copy of the value, or null. */
    public byte[] value() {
        return record.value();
    }

    public int valueLength() {
        return record.valueLength();
    }

    public List<String> tags() {
        return record.tags();
    }

    /** A copy of the headers; empty for a record without any. */
    public List<Header> headers() {
        return record.headers();
    }

    /** Compares the key without copying it. */
    public boolean keyEquals(byte[] key) {
        return record.keyEquals(key);
    }

    /** True when one of the tags has exactly these UTF-8 bytes; no copying. */
    public boolean hasTag(byte[] utf8Tag) {
        return record.hasTag(utf8Tag);
    }

    /** Key, value, tag and header bytes of the current record, what read limits count. */
    public int payloadBytes() {
        return Math.max(record.keyLength(), 0) + Math.max(record.valueLength(), 0) + tagsBytes() + record.headerBytes();
    }

    private int tagsBytes() {
        int bytes = 0;
        for (String tag : record.tags()) {
            bytes += tag.length();
        }
        return bytes;
    }

    public Record toRecord() {
        return record.toRecord();
    }

    public StoredRecord toStoredRecord() {
        return new StoredRecord(record.offset(), record.toRecord());
    }

    @Override
    public void close() {
        done = true;
        if (segment != null) {
            segment.release();
            segment = null;
        }
        batches = null;
    }
}
