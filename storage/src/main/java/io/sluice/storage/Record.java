package io.sluice.storage;

import java.util.Arrays;
import java.util.List;

/**
 * One record as a caller writes it: an optional key, an optional value, a timestamp in epoch
 * milliseconds, optional tags (the storage's own labels, for {@link Shard#readByTag}) and optional
 * headers (named values that travel with the record to its readers, as Kafka's record headers). A
 * record with a key and no value is a tombstone: in a compacted shard it deletes the key.
 *
 * <p>The arrays are not copied: a caller must not change them after handing the record over.
 */
public record Record(byte[] key, byte[] value, long timestamp, List<String> tags, List<Header> headers) {

    public Record {
        if (timestamp < 0) {
            throw new IllegalArgumentException("record timestamp must be >= 0 (epoch milliseconds), was " + timestamp);
        }
        tags = tags == null ? List.of() : List.copyOf(tags);
        headers = headers == null ? List.of() : List.copyOf(headers);
    }

    /** A record without headers. */
    public Record(byte[] key, byte[] value, long timestamp, List<String> tags) {
        this(key, value, timestamp, tags, List.of());
    }

    /** A record without tags. */
    public static Record of(byte[] key, byte[] value, long timestamp) {
        return new Record(key, value, timestamp, List.of());
    }

    /** A record without key or tags. */
    public static Record ofValue(byte[] value, long timestamp) {
        return new Record(null, value, timestamp, List.of());
    }

    /** True when the record carries a key and no value. */
    public boolean isTombstone() {
        return key != null && value == null;
    }

    /** Key, value, tag and header bytes: what read limits in bytes count. */
    public int payloadBytes() {
        int bytes = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        for (String tag : tags) {
            bytes += tag.length();
        }
        for (Header header : headers) {
            bytes += header.payloadBytes();
        }
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Record other
                && timestamp == other.timestamp
                && Arrays.equals(key, other.key)
                && Arrays.equals(value, other.value)
                && tags.equals(other.tags)
                && headers.equals(other.headers);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(key) + Arrays.hashCode(value)) + Long.hashCode(timestamp) + tags.hashCode()
                + 17 * headers.hashCode();
    }

    @Override
    public String toString() {
        return "Record[key=" + (key == null ? "null" : key.length + "B")
                + ", value=" + (value == null ? "null" : value.length + "B")
                + ", timestamp=" + timestamp + ", tags=" + tags + (headers.isEmpty() ? "" : ", headers=" + headers) + "]";
    }
}
