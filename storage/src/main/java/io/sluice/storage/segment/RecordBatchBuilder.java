package io.sluice.storage.segment;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;

import io.sluice.storage.Header;

/**
 * The batch under construction (layout in {@link RecordBatch}): records are encoded straight into
 * one preallocated direct buffer, then {@link #seal} writes the header and CRC and hands the buffer
 * to the segment. New records are written in the Kafka layout ({@link RecordBatch#KAFKA_RECORDS}),
 * their tags gathered in a small side buffer that {@link #seal} appends after them; compaction's
 * copies keep the layout of the batch they come from. Appending allocates nothing once the side
 * buffer has grown to the tags a batch carries. Owned by one thread (the log's writer or the cleaner).
 */
final class RecordBatchBuilder {
    private static final int INITIAL_TAG_BYTES = 256;

    private final ByteBuffer buffer;
    private final CRC32C crc = new CRC32C();
    /** The tags section of a Kafka-layout batch, until {@link #seal} appends it after the records. */
    private ByteBuffer tagSection = ByteBuffer.allocate(INITIAL_TAG_BYTES);
    private boolean kafkaLayout;
    private int recordsEnd;
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

    /**
     * Bytes a record adds to a batch without {@link RecordBatch#KAFKA_RECORDS} whose first record had
     * {@code firstTimestamp} and offset {@code base}.
     */
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

    /** Bytes a record adds to a Kafka-layout batch, its entry in the tags section included. */
    static int kafkaRecordSize(long offsetDelta, long timestampDelta, byte[] key, byte[] value,
                               byte[] tag, List<? extends CharSequence> tags, List<Header> headers) {
        int body = kafkaBodySize(offsetDelta, timestampDelta, key, value, headers);
        return Varint.sizeOfInt(body) + body + tagEntrySize(offsetDelta, tag, tags);
    }

    private static int kafkaBodySize(long offsetDelta, long timestampDelta, byte[] key, byte[] value,
                                     List<Header> headers) {
        return 1 + Varint.sizeOfLong(timestampDelta) + Varint.sizeOfInt((int) offsetDelta)
                + fieldSize(key) + fieldSize(value) + Varint.sizeOfInt(headers.size()) + headerFieldsSize(headers);
    }

    /** Nothing for a record without tags: it has no entry in the tags section. */
    private static int tagEntrySize(long offsetDelta, byte[] tag, List<? extends CharSequence> tags) {
        return tag == null && tags.isEmpty() ? 0 : Varint.sizeOfInt((int) offsetDelta) + tagsSize(tag, tags);
    }

    /**
     * Nothing for a record without headers in a batch without {@link RecordBatch#KAFKA_RECORDS}: it
     * keeps the layout records had before headers existed.
     */
    private static int headersSize(List<Header> headers) {
        return headers.isEmpty() ? 0 : Varint.sizeOfInt(headers.size()) + headerFieldsSize(headers);
    }

    private static int headerFieldsSize(List<Header> headers) {
        int size = 0;
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
        return kafkaRecordSize(offsetDelta, timestampDelta, key, value, tag, tags, headers);
    }

    /** Room left for records (and their tags). */
    int remaining() {
        return open ? buffer.remaining() - tagSection.position() : buffer.capacity() - RecordBatch.KAFKA_HEADER_SIZE;
    }

    /**
     * Appends one record; the caller has checked {@link #sizeIfAppended} against {@link #remaining}.
     * Exactly one of {@code tag} (UTF-8) and {@code tags} is used: {@code tag} when it is not null. Header
     * keys are written as UTF-8, the way tags are.
     */
    void append(long offset, long timestamp, byte[] key, byte[] value,
                byte[] tag, List<? extends CharSequence> tags, List<Header> headers) {
        if (!open) {
            start(offset, timestamp, true);
        }
        long offsetDelta = offset - baseOffset;
        writeKafkaRecord(buffer, offsetDelta, timestamp - firstTimestamp, key, value, headers);
        if (tag != null || !tags.isEmpty()) {
            writeTagEntry(offsetDelta, tag, tags);
        }
        recordAppended(offset, timestamp);
    }

    /** Writes one record's bytes in the Kafka layout ({@link RecordBatch}) at {@code buffer}'s position. */
    private static void writeKafkaRecord(ByteBuffer buffer, long offsetDelta, long timestampDelta, byte[] key,
                                         byte[] value, List<Header> headers) {
        Varint.writeInt(kafkaBodySize(offsetDelta, timestampDelta, key, value, headers), buffer);
        buffer.put((byte) 0);
        Varint.writeLong(timestampDelta, buffer);
        Varint.writeInt((int) offsetDelta, buffer);
        writeField(key, buffer);
        writeField(value, buffer);
        Varint.writeInt(headers.size(), buffer);
        writeHeaderFields(headers, buffer);
    }

    private void writeTagEntry(long offsetDelta, byte[] tag, List<? extends CharSequence> tagList) {
        ensureTagRoom(tagEntrySize(offsetDelta, tag, tagList));
        Varint.writeInt((int) offsetDelta, tagSection);
        writeTags(tag, tagList, tagSection);
    }

    private void ensureTagRoom(int bytes) {
        if (tagSection.remaining() < bytes) {
            ByteBuffer larger = ByteBuffer.allocate(Math.max(tagSection.capacity() * 2, tagSection.position() + bytes));
            larger.put(tagSection.flip());
            tagSection = larger;
        }
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
        writeTags(tag, tags, buffer);
        if (!headers.isEmpty()) {
            Varint.writeInt(headers.size(), buffer);
            writeHeaderFields(headers, buffer);
        }
    }

    private static void writeTags(byte[] tag, List<? extends CharSequence> tags, ByteBuffer buffer) {
        if (tag != null) {
            Varint.writeInt(1, buffer);
            writeField(tag, buffer);
        } else {
            Varint.writeInt(tags.size(), buffer);
            for (int i = 0; i < tags.size(); i++) {
                writeTag(tags.get(i), buffer);
            }
        }
    }

    private static void writeHeaderFields(List<Header> headers, ByteBuffer buffer) {
        for (int i = 0; i < headers.size(); i++) {
            writeTag(headers.get(i).key(), buffer);
            writeField(headers.get(i).value(), buffer);
        }
    }

    /**
     * Starts a batch that copies records from an existing one (compaction): the base offset, first
     * timestamp, last offset and record layout are those of the original, so copied record bytes
     * stay valid.
     */
    void startCopy(long originalBaseOffset, long originalFirstTimestamp, long originalLastOffset, boolean kafkaRecords) {
        start(originalBaseOffset, originalFirstTimestamp, kafkaRecords);
        lastOffset = originalLastOffset;
    }

    /**
     * Copies one record's bytes verbatim into a batch started by {@link #startCopy}, and in the Kafka
     * layout its entry of the tags section ({@code tagsLength} bytes at {@code tagsIndex}; 0 for none).
     */
    void appendCopy(ByteBuffer source, int index, int length, int tagsIndex, int tagsLength, long timestamp) {
        buffer.put(buffer.position(), source, index, length);
        buffer.position(buffer.position() + length);
        if (tagsLength > 0) {
            ensureTagRoom(tagsLength);
            tagSection.put(tagSection.position(), source, tagsIndex, tagsLength);
            tagSection.position(tagSection.position() + tagsLength);
        }
        count++;
        maxTimestamp = Math.max(maxTimestamp, timestamp);
    }

    /** Starts an empty batch that only marks {@code offset} as used (compaction's segment end marker). */
    void startEmpty(long offset) {
        start(offset, RecordBatch.NO_TIMESTAMP, true);
        lastOffset = offset;
    }

    private void start(long offset, long timestamp, boolean kafkaRecords) {
        buffer.clear();
        tagSection.clear();
        kafkaLayout = kafkaRecords;
        buffer.position(kafkaRecords ? RecordBatch.KAFKA_HEADER_SIZE : RecordBatch.HEADER_SIZE);
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
        recordsEnd = buffer.position();
        if (kafkaLayout) {
            buffer.putInt(RecordBatch.RECORDS_LENGTH_OFFSET, recordsEnd - RecordBatch.KAFKA_HEADER_SIZE);
            // A duplicate, so the tags stay where they are should the batch be unsealed.
            buffer.put(tagSection.duplicate().flip());
        }
        int end = buffer.position();
        buffer.putInt(RecordBatch.LENGTH_OFFSET, end - RecordBatch.LENGTH_LENGTH);
        buffer.put(RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC);
        buffer.put(RecordBatch.ATTRIBUTES_OFFSET, kafkaLayout ? RecordBatch.KAFKA_RECORDS : 0);
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
        buffer.limit(buffer.capacity()).position(recordsEnd);
    }

    /** Forgets the sealed batch; the next append starts a new one. */
    void reset() {
        buffer.clear();
        tagSection.clear();
        open = false;
        count = 0;
        baseOffset = -1;
        lastOffset = -1;
        maxTimestamp = RecordBatch.NO_TIMESTAMP;
    }
}
