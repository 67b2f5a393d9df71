package io.sluice.storage.segment;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;

import io.sluice.storage.Header;

/**
 * The batch under construction (layout in {@link RecordBatch}): records are encoded straight into
 * one preallocated direct buffer, then {@link #seal} writes the header and CRC and hands the buffer
 * to the segment. Appending allocates nothing. Owned by one thread (the log's writer or the cleaner).
 */
final class RecordBatchBuilder {
    private final ByteBuffer buffer;
    private final CRC32C crc = new CRC32C();
    private long baseOffset = -1;
    private long lastOffset = -1;
    private long firstTimestamp = RecordBatch.NO_TIMESTAMP;
    private long maxTimestamp = RecordBatch.NO_TIMESTAMP;
    private int count;
    private boolean open;

    RecordBatchBuilder(int capacity) {
        this.buffer = ByteBuffer.allocateDirect(capacity);
    }

    int capacity() {
        return buffer.capacity();
    }

    boolean isEmpty() {
        return !open;
    }

    int recordCount() {
        return count;
    }

    long baseOffset() {
        return baseOffset;
    }

    long lastOffset() {
        return lastOffset;
    }

    long firstTimestamp() {
        return firstTimestamp;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    /** Bytes a record adds to a batch whose first record had {@code firstTimestamp} and offset {@code base}. */
    static int recordSize(long offsetDelta, long timestampDelta, byte[] key, byte[] value,
                          byte[] tag, List<? extends CharSequence> tags, List<Header> headers) {
        int body = bodySize(offsetDelta, timestampDelta, key, value, tag, tags, headers);
        return Varint.sizeOfInt(body) + body;
    }

    private static int bodySize(long offsetDelta, long timestampDelta, byte[] key, byte[] value,
                                byte[] tag, List<? extends CharSequence> tags, List<Header> headers) {
        return 1 + Varint.sizeOfLong(timestampDelta) + Varint.sizeOfInt((int) offsetDelta)
                + fieldSize(key) + fieldSize(value) + tagsSize(tag, tags) + headersSize(headers);
    }

    /** Nothing for a record without headers: it keeps the layout records had before headers existed. */
    private static int headersSize(List<Header> headers) {
        if (headers.isEmpty()) {
            return 0;
        }
        int size = Varint.sizeOfInt(headers.size());
        for (int i = 0; i < headers.size(); i++) {
            Header header = headers.get(i);
            size += tagSize(header.key()) + fieldSize(header.value());
        }
        return size;
    }

    private static int fieldSize(byte[] bytes) {
        return bytes == null ? Varint.sizeOfInt(-1) : Varint.sizeOfInt(bytes.length) + bytes.length;
    }

    private static int tagsSize(byte[] tag, List<? extends CharSequence> tags) {
        if (tag != null) {
            return Varint.sizeOfInt(1) + Varint.sizeOfInt(tag.length) + tag.length;
        }
        int size = Varint.sizeOfInt(tags.size());
        for (int i = 0; i < tags.size(); i++) {
            size += tagSize(tags.get(i));
        }
        return size;
    }

    private static int tagSize(CharSequence tag) {
        int length = Utf8.encodedLength(tag);
        return Varint.sizeOfInt(length) + length;
    }

    /** Bytes the record would add to this builder now. */
    int sizeIfAppended(long offset, long timestamp, byte[] key, byte[] value,
                       byte[] tag, List<? extends CharSequence> tags, List<Header> headers) {
        long offsetDelta = open ? offset - baseOffset : 0;
        long timestampDelta = open ? timestamp - firstTimestamp : 0;
        return recordSize(offsetDelta, timestampDelta, key, value, tag, tags, headers);
    }

    /** Room left for records. */
    int remaining() {
        return open ? buffer.remaining() : buffer.capacity() - RecordBatch.HEADER_SIZE;
    }

    /**
     * Appends one record; the caller has checked {@link #sizeIfAppended} against {@link #remaining}.
     * Exactly one of {@code tag} (UTF-8) and {@code tags} is used: {@code tag} when it is not null. Header
     * keys are written as UTF-8, the way tags are.
     */
    void append(long offset, long timestamp, byte[] key, byte[] value,
                byte[] tag, List<? extends CharSequence> tags, List<Header> headers) {
        if (!open) {
            start(offset, timestamp);
        }
        writeRecord(buffer, offset - baseOffset, timestamp - firstTimestamp, key, value, tag, tags, headers);
        recordAppended(offset, timestamp);
    }

    /**
     * Writes one record's bytes (layout in {@link RecordBatch}) at {@code buffer}'s position: the
     * batch builder's encoding, also the value format of the RocksDB engine ({@link RecordCodec}).
     */
    static void writeRecord(ByteBuffer buffer, long offsetDelta, long timestampDelta, byte[] key, byte[] value,
                            byte[] tag, List<? extends CharSequence> tags, List<Header> headers) {
        Varint.writeInt(bodySize(offsetDelta, timestampDelta, key, value, tag, tags, headers), buffer);
        buffer.put(headers.isEmpty() ? 0 : RecordBatch.HAS_HEADERS);
        Varint.writeLong(timestampDelta, buffer);
        Varint.writeInt((int) offsetDelta, buffer);
        writeField(key, buffer);
        writeField(value, buffer);
        if (tag != null) {
            Varint.writeInt(1, buffer);
            writeField(tag, buffer);
        } else {
            Varint.writeInt(tags.size(), buffer);
            for (int i = 0; i < tags.size(); i++) {
                writeTag(tags.get(i), buffer);
            }
        }
        if (!headers.isEmpty()) {
            Varint.writeInt(headers.size(), buffer);
            for (int i = 0; i < headers.size(); i++) {
                writeTag(headers.get(i).key(), buffer);
                writeField(headers.get(i).value(), buffer);
            }
        }
    }

    /**
     * Starts a batch that copies records from an existing one (compaction): the base offset, first
     * timestamp and last offset are those of the original, so copied record bytes stay valid.
     */
    void startCopy(long originalBaseOffset, long originalFirstTimestamp, long originalLastOffset) {
        start(originalBaseOffset, originalFirstTimestamp);
        lastOffset = originalLastOffset;
    }

    /** Copies one record's bytes verbatim into a batch started by {@link #startCopy}. */
    void appendCopy(ByteBuffer source, int index, int length, long timestamp) {
        buffer.put(buffer.position(), source, index, length);
        buffer.position(buffer.position() + length);
        count++;
        maxTimestamp = Math.max(maxTimestamp, timestamp);
    }

    /** Starts an empty batch that only marks {@code offset} as used (compaction's segment end marker). */
    void startEmpty(long offset) {
        start(offset, RecordBatch.NO_TIMESTAMP);
        lastOffset = offset;
    }

    private void start(long offset, long timestamp) {
        buffer.clear();
        buffer.position(RecordBatch.HEADER_SIZE);
        baseOffset = offset;
        lastOffset = offset;
        firstTimestamp = timestamp;
        maxTimestamp = RecordBatch.NO_TIMESTAMP;
        count = 0;
        open = true;
    }

    private void recordAppended(long offset, long timestamp) {
        count++;
        lastOffset = offset;
        maxTimestamp = Math.max(maxTimestamp, timestamp);
    }

    private static void writeField(byte[] bytes, ByteBuffer buffer) {
        if (bytes == null) {
            Varint.writeInt(-1, buffer);
        } else {
            Varint.writeInt(bytes.length, buffer);
            buffer.put(bytes);
        }
    }

    private static void writeTag(CharSequence tag, ByteBuffer buffer) {
        Varint.writeInt(Utf8.encodedLength(tag), buffer);
        Utf8.encode(tag, buffer);
    }

    /**
     * Writes the header and CRC; returns the buffer with position 0 and limit at the batch end,
     * ready for the segment. The builder stays sealed until {@link #reset}.
     */
    ByteBuffer seal() {
        int end = buffer.position();
        buffer.putInt(RecordBatch.LENGTH_OFFSET, end - RecordBatch.LENGTH_LENGTH);
        buffer.put(RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC);
        buffer.put(RecordBatch.ATTRIBUTES_OFFSET, (byte) 0);
        buffer.putLong(RecordBatch.BASE_OFFSET_OFFSET, baseOffset);
        buffer.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, (int) (lastOffset - baseOffset));
        buffer.putLong(RecordBatch.FIRST_TIMESTAMP_OFFSET, firstTimestamp);
        buffer.putLong(RecordBatch.MAX_TIMESTAMP_OFFSET, maxTimestamp);
        buffer.putInt(RecordBatch.RECORD_COUNT_OFFSET, count);
        buffer.limit(end).position(RecordBatch.MAGIC_OFFSET);
        crc.reset();
        crc.update(buffer);
        buffer.putInt(RecordBatch.CRC_OFFSET, (int) crc.getValue());
        buffer.limit(end).position(0);
        return buffer;
    }

    /** Undoes {@link #seal} after a failed write: the batch stays open, to be sealed and written again. */
    void unseal() {
        int end = buffer.limit();
        buffer.limit(buffer.capacity()).position(end);
    }

    /** Forgets the sealed batch; the next append starts a new one. */
    void reset() {
        buffer.clear();
        open = false;
        count = 0;
        baseOffset = -1;
        lastOffset = -1;
        maxTimestamp = RecordBatch.NO_TIMESTAMP;
    }
}
