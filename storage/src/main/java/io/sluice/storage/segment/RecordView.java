package io.sluice.storage.segment;

import java.nio.BufferUnderflowException;
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
    private ByteBuffer source;
    private ByteBuffer cursor;
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
     * Parses the record starting at {@code index} of {@code buffer}, a batch with the given base
     * offset and first timestamp that ends at {@code batchEnd}; returns the index after the record.
     * Every length inside the record is checked against the record's end here, so the accessors
     * that read tags and headers later cannot run past it.
     *
     * @throws IllegalArgumentException when the framing does not fit inside the batch
     */
    int parse(ByteBuffer buffer, int index, int batchEnd, long baseOffset, long firstTimestamp) {
        if (buffer != source) {
            source = buffer;
            cursor = buffer.duplicate();
        }
        cursor.limit(batchEnd).position(index);
        try {
            return parseFraming(index, batchEnd, baseOffset, firstTimestamp);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("record at batch index " + index + " runs past its end (batch end " + batchEnd + ")", e);
        }
    }

    private int parseFraming(int index, int batchEnd, long baseOffset, long firstTimestamp) {
        int length = Varint.readInt(cursor);
        start = index;
        end = cursor.position() + length;
        if (length < 0 || end > batchEnd) {
            throw new IllegalArgumentException("record length " + length + " at batch index " + index
                    + " runs past the batch end " + batchEnd);
        }
        cursor.limit(end);
        byte attributes = cursor.get();
        timestamp = firstTimestamp + Varint.readLong(cursor);
        if (timestamp < 0) {
            throw new IllegalArgumentException("record at batch index " + index + " has a negative timestamp " + timestamp);
        }
        offset = baseOffset + Varint.readInt(cursor);
        keyLength = Varint.readInt(cursor);
        keyIndex = cursor.position();
        skipNullable(keyLength);
        valueLength = Varint.readInt(cursor);
        valueIndex = cursor.position();
        skipNullable(valueLength);
        tagCount = count(Varint.readInt(cursor), "tag", index);
        tagsIndex = cursor.position();
        tagBytes = 0;
        for (int i = 0; i < tagCount; i++) {
            int tagLength = Varint.readInt(cursor);
            skip(tagLength);
            tagBytes += tagLength;
        }
        headerCount = 0;
        headerCountIndex = end;
        headersIndex = end;
        if ((attributes & RecordBatch.HAS_HEADERS) != 0) {
            headerCountIndex = cursor.position();
            headerCount = count(Varint.readInt(cursor), "header", index);
            headersIndex = cursor.position();
            for (int i = 0; i < headerCount; i++) {
                skip(Varint.readInt(cursor));
                skipNullable(Varint.readInt(cursor));
            }
        }
        return end;
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
        if (length < 0 || length > cursor.remaining()) {
            throw new IllegalArgumentException("field of " + length + " bytes at record index " + cursor.position()
                    + " does not fit the " + cursor.remaining() + " bytes left of the record");
        }
        cursor.position(cursor.position() + length);
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
            source.get(keyIndex, destination, at, keyLength);
        }
    }

    @Override
    public void copyValue(byte[] destination, int at) {
        if (valueLength > 0) {
            source.get(valueIndex, destination, at, valueLength);
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
            source.get(headerCountIndex, destination, at, end - headerCountIndex);
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
        cursor.limit(end).position(tagsIndex);
        for (int i = 0; i < tagCount; i++) {
            int length = Varint.readInt(cursor);
            int at = cursor.position();
            if (length == tag.length && rangeEquals(at, tag)) {
                return true;
            }
            cursor.position(at + length);
        }
        return false;
    }

    private boolean rangeEquals(int index, byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (source.get(index + i) != bytes[i]) {
                return false;
            }
        }
        return true;
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
        cursor.limit(end).position(tagsIndex);
        for (int i = 0; i < tagCount; i++) {
            int length = Varint.readInt(cursor);
            byte[] bytes = new byte[length];
            cursor.get(bytes);
            tags.add(new String(bytes, StandardCharsets.UTF_8));
        }
        return tags;
    }

    /** The record's headers, copied; empty for a record without any. */
    List<Header> headers() {
        if (headerCount == 0) {
            return List.of();
        }
        List<Header> headers = new ArrayList<>(headerCount);
        cursor.limit(end).position(headersIndex);
        for (int i = 0; i < headerCount; i++) {
            byte[] name = new byte[Varint.readInt(cursor)];
            cursor.get(name);
            int valueLength = Varint.readInt(cursor);
            byte[] bytes = null;
            if (valueLength >= 0) {
                bytes = new byte[valueLength];
                cursor.get(bytes);
            }
            headers.add(new Header(new String(name, StandardCharsets.UTF_8), bytes));
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
        byte[] bytes = new byte[length];
        source.get(index, bytes);
        return bytes;
    }

    @Override
    public String toString() {
        return "RecordView[offset=" + offset + ", timestamp=" + timestamp + ", key=" + Arrays.toString(key()) + "]";
    }
}
