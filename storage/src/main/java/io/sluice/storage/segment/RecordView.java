package io.sluice.storage.segment;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.sluice.storage.Header;
import io.sluice.storage.Record;
import io.sluice.storage.RecordFlyweight;

/**
 * A flyweight over one record inside a batch (layout in {@link RecordBatch}): {@link #parse} reads
 * the record's framing and remembers where its key, value, tags and headers lie, so a scan can test
 * a key or a tag, skip a record, or copy its fields where a reader wants them
 * ({@link RecordFlyweight}) without copying anything else. Both record layouts write headers as
 * {@link RecordFlyweight} hands them out, so they are copied as one run. In a Kafka-layout batch a
 * record's tags come from the batch's tags section, read along with the records in order. One view
 * serves a whole scan; not thread-safe.
 */
final class RecordView implements RecordFlyweight {
    private final Varint.Reader reader = new Varint.Reader();
    private ByteBuffer source;
    /** The source's array, read directly; {@code base} is the array index of buffer index 0. */
    private byte[] bytes;
    private int base;
    private int start;
    private int end;
    private long offset;
    private long timestamp;
    private int keyIndex;
    private int keyLength;
    private int valueIndex;
    private int valueLength;
    private int tagsIndex;
    /** Index after the record's tags: its end, or in the Kafka layout the end of its tags section entry. */
    private int tagsEnd;
    private int tagCount;
    private int tagBytes;
    private int headerCountIndex;
    private int headersIndex;
    private int headerCount;
    /** The batch being read: its layout, base offset, first timestamp, end, and where its records end. */
    private boolean kafkaLayout;
    private long batchBase;
    private long batchFirstTimestamp;
    private int batchEnd;
    private int recordsEnd;
    /** Kafka layout: index of the next unread entry of the tags section, and the record's own entry. */
    private int tagCursor;
    private int tagEntryIndex;
    private int tagEntryLength;

    /**
     * Parses the record starting at {@code index} of {@code buffer} (a heap buffer, whose array it
     * reads) in the layout of a batch without {@link RecordBatch#KAFKA_RECORDS} (and of
     * {@link RecordCodec}), in a batch with the given base offset and first timestamp that ends at
     * {@code batchEnd}; returns the index after the record. Every length inside the record is
     * checked against the record's end here, so the accessors that read tags and headers later
     * cannot run past it. Indices are the buffer's.
     *
     * @throws IllegalArgumentException when the framing does not fit inside the batch
     */
    int parse(ByteBuffer buffer, int index, int batchEnd, long baseOffset, long firstTimestamp) {
        use(buffer, batchEnd);
        kafkaLayout = false;
        recordsEnd = batchEnd;
        tagCursor = batchEnd;
        this.batchEnd = batchEnd;
        batchBase = baseOffset;
        batchFirstTimestamp = firstTimestamp;
        return parseNext(index);
    }

    /**
     * Starts on the batch at {@code batchIndex} of {@code buffer} (a heap buffer holding the whole
     * batch, its header checked); returns the index of its first record, for {@link #parseNext}.
     */
    int enterBatch(ByteBuffer buffer, int batchIndex) {
        batchEnd = batchIndex + RecordBatch.sizeInBytes(buffer, batchIndex);
        use(buffer, batchEnd);
        kafkaLayout = RecordBatch.hasKafkaRecords(buffer, batchIndex);
        recordsEnd = RecordBatch.recordsEnd(buffer, batchIndex);
        tagCursor = recordsEnd;
        batchBase = RecordBatch.baseOffset(buffer, batchIndex);
        batchFirstTimestamp = RecordBatch.firstTimestamp(buffer, batchIndex);
        return RecordBatch.recordsIndex(buffer, batchIndex);
    }

    /**
     * Parses the record at {@code index} of the batch last entered (or given to {@link #parse});
     * returns the index after it. Records must be parsed in order, since a Kafka-layout batch's
     * tags section is read along with them.
     *
     * @throws IllegalArgumentException when the framing does not fit inside the batch
     */
    int parseNext(int index) {
        if (index < 0 || index > recordsEnd) {
            throw new IllegalArgumentException("record at batch index " + index + " is outside the records' end " + recordsEnd);
        }
        reader.reset(bytes, base + index, base + recordsEnd);
        int next = parseFraming(index);
        if (kafkaLayout) {
            parseTagEntry(index);
        }
        return next;
    }

    private void use(ByteBuffer buffer, int batchEnd) {
        if (buffer != source) {
            if (!buffer.hasArray()) {
                throw new IllegalArgumentException("records are parsed from heap buffers, not " + buffer);
            }
            source = buffer;
            bytes = buffer.array();
            base = buffer.arrayOffset();
        }
        if (batchEnd > buffer.capacity()) {
            throw new IllegalArgumentException("batch end " + batchEnd + " is past the buffer's " + buffer.capacity() + " bytes");
        }
    }

    private int parseFraming(int index) {
        int length = reader.readInt();
        start = index;
        end = position() + length;
        if (length < 0 || end > recordsEnd) {
            throw new IllegalArgumentException("record length " + length + " at batch index " + index
                    + " runs past the records' end " + recordsEnd);
        }
        reader.limit(base + end);
        byte attributes = reader.readByte();
        timestamp = batchFirstTimestamp + reader.readLong();
        if (timestamp < 0) {
            throw new IllegalArgumentException("record at batch index " + index + " has a negative timestamp " + timestamp);
        }
        offset = batchBase + reader.readInt();
        keyLength = reader.readInt();
        keyIndex = position();
        skipNullable(keyLength);
        valueLength = reader.readInt();
        valueIndex = position();
        skipNullable(valueLength);
        tagCount = 0;
        tagBytes = 0;
        tagEntryLength = 0;
        if (!kafkaLayout) {
            tagCount = skipTags(index);
            tagsEnd = end;
        }
        headerCount = 0;
        headerCountIndex = end;
        headersIndex = end;
        if (kafkaLayout || (attributes & RecordBatch.HAS_HEADERS) != 0) {
            headerCountIndex = position();
            headerCount = count(reader.readInt(), "header", index);
            headersIndex = position();
            for (int i = 0; i < headerCount; i++) {
                skip(reader.readInt());
                skipNullable(reader.readInt());
            }
        }
        if (kafkaLayout && reader.remaining() != 0) {
            throw new IllegalArgumentException("record at batch index " + index + " has " + reader.remaining()
                    + " bytes after its headers");
        }
        return end;
    }

    /** Reads a tag count and skips the tags, noting where they start and adding up their bytes; returns the count. */
    private int skipTags(int index) {
        int count = count(reader.readInt(), "tag", index);
        tagsIndex = position();
        for (int i = 0; i < count; i++) {
            int tagLength = reader.readInt();
            skip(tagLength);
            tagBytes += tagLength;
        }
        return count;
    }

    /** Takes the record's tags from the next entry of the tags section, when that entry is the record's. */
    private void parseTagEntry(int index) {
        if (tagCursor >= batchEnd) {
            return;
        }
        reader.reset(bytes, base + tagCursor, base + batchEnd);
        long entryOffset = batchBase + reader.readInt();
        if (entryOffset < offset) {
            throw new IllegalArgumentException("tags section entry for offset " + entryOffset + " at batch index " + tagCursor
                    + " matches no record (the record at batch index " + index + " has offset " + offset + ")");
        }
        if (entryOffset > offset) {
            return;
        }
        tagEntryIndex = tagCursor;
        tagCount = skipTags(index);
        tagsEnd = position();
        tagCursor = tagsEnd;
        tagEntryLength = tagsEnd - tagEntryIndex;
    }

    /** The reader's position as a buffer index. */
    private int position() {
        return reader.position() - base;
    }

    private static int count(int count, String what, int index) {
        if (count < 0) {
            throw new IllegalArgumentException("negative " + what + " count " + count + " at batch index " + index);
        }
        return count;
    }

    /** Skips a field of {@code length} bytes, -1 meaning absent. */
    private void skipNullable(int length) {
        if (length != -1) {
            skip(length);
        }
    }

    private void skip(int length) {
        if (length < 0 || length > reader.remaining()) {
            throw new IllegalArgumentException("field of " + length + " bytes at record index " + position()
                    + " does not fit the " + reader.remaining() + " bytes left of the record");
        }
        reader.skip(length);
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public long timestamp() {
        return timestamp;
    }

    boolean hasKey() {
        return keyLength >= 0;
    }

    boolean hasValue() {
        return valueLength >= 0;
    }

    @Override
    public int keyLength() {
        return keyLength;
    }

    @Override
    public int valueLength() {
        return valueLength;
    }

    @Override
    public void copyKey(byte[] destination, int at) {
        if (keyLength > 0) {
            System.arraycopy(bytes, base + keyIndex, destination, at, keyLength);
        }
    }

    @Override
    public void copyValue(byte[] destination, int at) {
        if (valueLength > 0) {
            System.arraycopy(bytes, base + valueIndex, destination, at, valueLength);
        }
    }

    @Override
    public int headersSize() {
        return headerCount == 0 ? 1 : end - headerCountIndex;
    }

    @Override
    public void copyHeaders(byte[] destination, int at) {
        if (headerCount == 0) {
            destination[at] = 0;
        } else {
            System.arraycopy(bytes, base + headerCountIndex, destination, at, end - headerCountIndex);
        }
    }

    /** UTF-8 bytes of the tags, framing not included. */
    int tagBytes() {
        return tagBytes;
    }

    /** Index of the record's first byte (its length varint) in the buffer. */
    int start() {
        return start;
    }

    /** Index after the record's last byte. */
    int end() {
        return end;
    }

    /** Kafka layout: index of the record's entry in the batch's tags section. */
    int tagEntryIndex() {
        return tagEntryIndex;
    }

    /** Kafka layout: bytes of the record's entry in the tags section; 0 when it has no tags (and always in the other layout). */
    int tagEntryLength() {
        return tagEntryLength;
    }

    int keyIndex() {
        return keyIndex;
    }

    boolean keyEquals(byte[] key) {
        return keyLength == key.length && rangeEquals(keyIndex, key);
    }

    /** True when one of the record's tags has exactly these UTF-8 bytes. */
    boolean hasTag(byte[] tag) {
        reader.reset(bytes, base + tagsIndex, base + tagsEnd);
        for (int i = 0; i < tagCount; i++) {
            int length = reader.readInt();
            if (length == tag.length && rangeEquals(position(), tag)) {
                return true;
            }
            reader.skip(length);
        }
        return false;
    }

    private boolean rangeEquals(int index, byte[] bytes) {
        return Arrays.equals(this.bytes, base + index, base + index + bytes.length, bytes, 0, bytes.length);
    }

    byte[] key() {
        return copy(keyIndex, keyLength);
    }

    byte[] value() {
        return copy(valueIndex, valueLength);
    }

    List<String> tags() {
        if (tagCount == 0) {
            return List.of();
        }
        List<String> tags = new ArrayList<>(tagCount);
        reader.reset(bytes, base + tagsIndex, base + tagsEnd);
        for (int i = 0; i < tagCount; i++) {
            int length = reader.readInt();
            tags.add(new String(bytes, reader.position(), length, StandardCharsets.UTF_8));
            reader.skip(length);
        }
        return tags;
    }

    /** The record's headers, copied; empty for a record without any. */
    List<Header> headers() {
        if (headerCount == 0) {
            return List.of();
        }
        List<Header> headers = new ArrayList<>(headerCount);
        reader.reset(bytes, base + headersIndex, base + end);
        for (int i = 0; i < headerCount; i++) {
            int nameLength = reader.readInt();
            String name = new String(bytes, reader.position(), nameLength, StandardCharsets.UTF_8);
            reader.skip(nameLength);
            int length = reader.readInt();
            headers.add(new Header(name, copy(position(), length)));
            reader.skip(Math.max(length, 0));
        }
        return headers;
    }

    /** Bytes of the header fields, framing included; 0 for a record without headers. */
    int headerBytes() {
        return headerCount == 0 ? 0 : end - headersIndex;
    }

    /** Key, value, tags and headers copied into a record the caller owns. */
    Record toRecord() {
        return new Record(key(), value(), timestamp, tags(), headers());
    }

    private byte[] copy(int index, int length) {
        if (length < 0) {
            return null;
        }
        byte[] copy = new byte[length];
        System.arraycopy(bytes, base + index, copy, 0, length);
        return copy;
    }

    @Override
    public String toString() {
        return "RecordView[offset=" + offset + ", timestamp=" + timestamp + ", key=" + Arrays.toString(key()) + "]";
    }
}
