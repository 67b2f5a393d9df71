package io.sluice.storage;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

import io.sluice.storage.segment.RecordCodec;

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

    /**
     * The records {@link #readByOffset(long, int, int)} gives, each handed to {@code visitor} in offset
     * order as a {@link RecordFlyweight} that is valid only during the call; returns how many. The
     * segment engine reads them in place without copying; engines that keep records as objects
     * (this default) encode each one first.
     *
     * @throws OffsetOutOfRangeException outside [{@link #startOffset}, {@link #endOffset}]
     */
    default int readByOffset(long offset, int maxRecords, int maxBytes, Consumer<RecordFlyweight> visitor) {
        List<StoredRecord> records = readByOffset(offset, maxRecords, maxBytes);
        RecordCodec.visit(records, visitor);
        return records.size();
    }

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
