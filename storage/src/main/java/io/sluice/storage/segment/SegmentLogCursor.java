package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

import io.sluice.storage.CorruptRecordException;
import io.sluice.storage.Header;
import io.sluice.storage.LogCursor;
import io.sluice.storage.RecordBatchVisitor;
import io.sluice.storage.StorageException;
import io.sluice.storage.StoredRecord;

/**
 * The {@link LogCursor} of a {@link SegmentLog}: large positional reads through a
 * {@link BatchIterator} into this thread's kept read buffer ({@link ReadBuffers}, given back at
 * {@link #close}) and a {@link RecordView} over each record, so a full scan to rebuild state is fast. Holds a reference to its current segment, so retention or compaction cannot close the
 * file under it; a segment deleted before the cursor reached it is skipped.
 */
final class SegmentLogCursor implements LogCursor {
    private final SegmentLog log;
    private final SegmentLog.Position end;
    private final long from;
    private final long minTimestamp;
    private final RecordView record = new RecordView();
    private Segment segment;
    private BatchIterator batches;
    /** The read buffer between segments (held by {@link #batches} while it reads one), taken from {@link ReadBuffers}. */
    private ByteBuffer readBuffer;
    private int recordIndex;
    private int recordsLeft;
    private long batchBase;
    private long batchLast;
    private long previousOffset;
    private boolean done;

    /**
     * @param minTimestamp skip batches and records with older timestamps (-1: none), for
     *                     offset-for-timestamp lookups
     */
    SegmentLogCursor(SegmentLog log, long from, SegmentLog.Position end, long minTimestamp) {
        this.log = log;
        this.from = from;
        this.end = end;
        this.minTimestamp = minTimestamp;
    }

    @Override
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
            recordIndex = record.parseNext(recordIndex);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            log.countCorruptRead();
            throw new CorruptRecordException(segment.logFile(), batches.batchPosition(), "unreadable record: " + e.getMessage());
        }
        // Readers rely on offsets going up; a batch whose checksum holds but whose records do not is damage too.
        if (record.offset() <= previousOffset || record.offset() > batchLast) {
            log.countCorruptRead();
            throw new CorruptRecordException(segment.logFile(), batches.batchPosition(), "record offset " + record.offset()
                    + " is not after " + previousOffset + " within the batch's offsets " + batchBase + ".." + batchLast);
        }
        previousOffset = record.offset();
    }

    /**
     * Between batches, moves to the next one and returns true when it can be handed out whole
     * ({@link #handOutWholeBatch}): its records are in the Kafka layout and all below the end, and no
     * timestamp filter applies. {@link #next} then goes on after it. Otherwise {@link #next} visits
     * the batch's records as usual; within a batch, returns false.
     */
    boolean nextWholeBatch() {
        if (recordsLeft > 0 || done) {
            return false;
        }
        if (!nextBatch()) {
            return finish();
        }
        ByteBuffer buffer = batches.buffer();
        if (!RecordBatch.hasKafkaRecords(buffer, batches.batchIndex()) || batchLast >= end.offset() || minTimestamp >= 0) {
            return false;
        }
        recordsLeft = 0;
        return true;
    }

    /** Records of the batch {@link #nextWholeBatch} moved to. */
    int wholeBatchRecords() {
        return RecordBatch.recordCount(batches.buffer(), batches.batchIndex());
    }

    /** Bytes of the records of the batch {@link #nextWholeBatch} moved to. */
    int wholeBatchBytes() {
        ByteBuffer buffer = batches.buffer();
        int index = batches.batchIndex();
        return RecordBatch.recordsEnd(buffer, index) - RecordBatch.recordsIndex(buffer, index);
    }

    /** Hands the batch {@link #nextWholeBatch} moved to to {@code visitor}, its records region in place. */
    void handOutWholeBatch(RecordBatchVisitor visitor) {
        ByteBuffer buffer = batches.buffer();
        int index = batches.batchIndex();
        ByteBuffer records = buffer.duplicate().limit(RecordBatch.recordsEnd(buffer, index))
                .position(RecordBatch.recordsIndex(buffer, index));
        visitor.acceptBatch(batchBase, (int) (batchLast - batchBase), RecordBatch.firstTimestamp(buffer, index),
                RecordBatch.maxTimestamp(buffer, index), wholeBatchRecords(), records, batches.recordsCrc());
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
                readBuffer = batches.buffer();
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
        batchLast = RecordBatch.lastOffset(buffer, index);
        previousOffset = base - 1;
        recordsLeft = RecordBatch.recordCount(buffer, index);
        recordIndex = record.enterBatch(buffer, index);
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
                int limit = end.readableBytes(candidate);
                long start = candidate.baseOffset() < from ? candidate.positionFor(from) : 0;
                if (readBuffer == null) {
                    readBuffer = ReadBuffers.take();
                }
                batches = candidate.iterator(Math.min(start, limit), limit, true, readBuffer);
                readBuffer = null;
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

    @Override
    public long offset() {
        return record.offset();
    }

    @Override
    public long timestamp() {
        return record.timestamp();
    }

    @Override
    public boolean hasKey() {
        return record.hasKey();
    }

    @Override
    public boolean isTombstone() {
        return record.hasKey() && !record.hasValue();
    }

    @Override
    public byte[] key() {
        return record.key();
    }

    @Override
    public byte[] value() {
        return record.value();
    }

    @Override
    public List<String> tags() {
        return record.tags();
    }

    @Override
    public List<Header> headers() {
        return record.headers();
    }

    @Override
    public boolean keyEquals(byte[] key) {
        return record.keyEquals(key);
    }

    @Override
    public boolean hasTag(byte[] utf8Tag) {
        return record.hasTag(utf8Tag);
    }

    @Override
    public int payloadBytes() {
        return Math.max(record.keyLength(), 0) + Math.max(record.valueLength(), 0) + record.tagBytes() + record.headerBytes();
    }

    /** The current record in place; valid until {@link #next}. */
    RecordView view() {
        return record;
    }

    @Override
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
        ByteBuffer buffer = batches != null ? batches.buffer() : readBuffer;
        if (buffer != null) {
            ReadBuffers.giveBack(buffer);
        }
        batches = null;
        readBuffer = null;
    }
}
