package io.sluice.storage.segment;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.sluice.storage.Record;

/**
 * A flyweight over one record inside a batch (layout in {@link RecordBatch}): {@link #parse} reads
 * the record's framing and remembers where its key, value and tags lie, so a scan can test a key or
 * a tag and skip a record without copying anything. One view serves a whole scan; not thread-safe.
 */
final class RecordView {
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

    /**
     * Parses the record starting at {@code index} of {@code buffer}, a batch with the given base
     * offset and first timestamp that ends at {@code batchEnd}; returns the index after the record.
     *
     * @throws IllegalArgumentException when the framing does not fit inside the batch
     */
    int parse(ByteBuffer buffer, int index, int batchEnd, long baseOffset, long firstTimestamp) {
        if (buffer != source) {
            source = buffer;
            cursor = buffer.duplicate();
        }
        cursor.limit(batchEnd).position(index);
        int length = Varint.readInt(cursor);
        start = index;
        end = cursor.position() + length;
        if (length < 0 || end > batchEnd) {
            throw new IllegalArgumentException("record length " + length + " at batch index " + index
                    + " runs past the batch end " + batchEnd);
        }
        cursor.limit(end);
        cursor.get(); // attributes, reserved
        timestamp = firstTimestamp + Varint.readLong(cursor);
        offset = baseOffset + Varint.readInt(cursor);
        keyLength = Varint.readInt(cursor);
        keyIndex = cursor.position();
        skip(keyLength);
        valueLength = Varint.readInt(cursor);
        valueIndex = cursor.position();
        skip(valueLength);
        tagCount = Varint.readInt(cursor);
        tagsIndex = cursor.position();
        if (tagCount < 0) {
            throw new IllegalArgumentException("negative tag count " + tagCount + " at batch index " + index);
        }
        return end;
    }

    private void skip(int length) {
        if (length > 0) {
            cursor.position(cursor.position() + length);
        }
    }

    long offset() {
        return offset;
    }

    long timestamp() {
        return timestamp;
    }

    boolean hasKey() {
        return keyLength >= 0;
    }

    boolean hasValue() {
        return valueLength >= 0;
    }

    int keyLength() {
        return keyLength;
    }

    int valueLength() {
        return valueLength;
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

    /** Key, value and tags copied into a record the caller owns. */
    Record toRecord() {
        return new Record(key(), value(), timestamp, tags());
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
