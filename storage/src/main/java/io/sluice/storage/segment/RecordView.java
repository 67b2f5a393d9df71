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
 * ({@link RecordFlyweight}) without copying anything else. The record layout writes headers as
 * {@link RecordFlyweight} hands them out, so they are copied as one run. One view serves a whole
 * scan; not thread-safe.
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
    private int tagCount;
    private int tagBytes;
    private int headerCountIndex;
    private int headersIndex;
    private int headerCount;

    /**
     * Parses the record starting at {@code index} of {@code buffer} (a heap buffer, whose array it
     * reads), a batch with the given base offset and first timestamp that ends at {@code batchEnd};
     * returns the index after the record. Every length inside the record is checked against the
     * record's end here, so the accessors that read tags and headers later cannot run past it.
     * Indices are the buffer's.
     *
     * @throws IllegalArgumentException when the framing does not fit inside the batch
     */
    int parse(ByteBuffer buffer, int index, int batchEnd, long baseOffset, long firstTimestamp) {
        if (buffer != source) {
            if (!buffer.hasArray()) {
                throw new IllegalArgumentException("records are parsed from heap buffers, not " + buffer);
            }
            source = buffer;
            bytes = buffer.array();
            base = buffer.arrayOffset();
        }
        if (index < 0 || batchEnd > buffer.capacity() || index > batchEnd) {
            throw new IllegalArgumentException("record at batch index " + index + " is outside the batch end " + batchEnd
                    + " or the buffer's " + buffer.capacity() + " bytes");
        }
        reader.reset(bytes, base + index, base + batchEnd);
        return parseFraming(index, batchEnd, baseOffset, firstTimestamp);
    }

    private int parseFraming(int index, int batchEnd, long baseOffset, long firstTimestamp) {
        int length = reader.readInt();
        start = index;
        end = position() + length;
        if (length < 0 || end > batchEnd) {
            throw new IllegalArgumentException("record length " + length + " at batch index " + index
                    + " runs past the batch end " + batchEnd);
        }
        reader.limit(base + end);
        byte attributes = reader.readByte();
        timestamp = firstTimestamp + reader.readLong();
        if (timestamp < 0) {
            throw new IllegalArgumentException("record at batch index " + index + " has a negative timestamp " + timestamp);
        }
        offset = baseOffset + reader.readInt();
        keyLength = reader.readInt();
        keyIndex = position();
        skipNullable(keyLength);
        valueLength = reader.readInt();
        valueIndex = position();
        skipNullable(valueLength);
        tagCount = count(reader.readInt(), "tag", index);
        tagsIndex = position();
        tagBytes = 0;
        for (int i = 0; i < tagCount; i++) {
            int tagLength = reader.readInt();
            skip(tagLength);
            tagBytes += tagLength;
        }
        headerCount = 0;
        headerCountIndex = end;
        headersIndex = end;
        if ((attributes & RecordBatch.HAS_HEADERS) != 0) {
            headerCountIndex = position();
            headerCount = count(reader.readInt(), "header", index);
            headersIndex = position();
            for (int i = 0; i < headerCount; i++) {
                skip(reader.readInt());
                skipNullable(reader.readInt());
            }
        }
        return end;
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

    int keyIndex() {
        return keyIndex;
    }

    boolean keyEquals(byte[] key) {
        return keyLength == key.length && rangeEquals(keyIndex, key);
    }

    /** True when one of the record's tags has exactly these UTF-8 bytes. */
    boolean hasTag(byte[] tag) {
        reader.reset(bytes, base + tagsIndex, base + end);
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
        reader.reset(bytes, base + tagsIndex, base + end);
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
