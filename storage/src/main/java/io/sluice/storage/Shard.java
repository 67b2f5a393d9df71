package io.sluice.storage;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One shard behind the storage adapter: the unit of data of a protocol (an MQTT topic partition,
 * a Kafka-style partition), stored by one engine. Every engine ({@code memory}, {@code segment},
 * {@code rocksdb}) implements this, and the adapter contract tests run against each. All methods are thread-safe;
 * writes return once durable under the shard's flush policy.
 */
public interface Shard extends AutoCloseable {

    String name();

    ShardSettings settings();

    /** Appends one record; returns its offset. */
    long write(Record record);

    /** Appends records in order, together; returns their offsets. */
    long[] batchWrite(List<Record> records);

    /**
     * Records from {@code offset}, at most {@code maxRecords} and about {@code maxBytes} bytes of
     * keys, values and tags (at least one record when there is one).
     *
     * @throws OffsetOutOfRangeException outside [{@link #startOffset}, {@link #endOffset}]
     */
    List<StoredRecord> readByOffset(long offset, int maxRecords, int maxBytes);

    /** Records whose key equals {@code key}, from {@code fromOffset} on, oldest first, at most {@code maxRecords}; from an index. */
    List<StoredRecord> readByKey(byte[] key, long fromOffset, int maxRecords);

    /** Records carrying {@code tag}, from {@code fromOffset} on, oldest first, at most {@code maxRecords}; from an index. */
    List<StoredRecord> readByTag(String tag, long fromOffset, int maxRecords);

    /**
     * First offset whose record has a timestamp >= {@code timestamp}, or {@link #endOffset} when none;
     * -2 gives the start offset, -1 the end offset.
     */
    long offsetForTimestamp(long timestamp);

    /** First readable offset. */
    long startOffset();

    /** Offset after the last readable record: the next one a reader waits for. */
    long endOffset();

    /** Makes offsets below {@code offset} unreadable and frees their space. */
    void deleteRecordsBefore(long offset);

    /** Closes cleanly; a segment shard leaves its files ready for a fast reopen. */
    @Override
    void close();

    /** The UTF-8 bytes of a tag, as stored. */
    static byte[] tagBytes(String tag) {
        return tag.getBytes(StandardCharsets.UTF_8);
    }
}
