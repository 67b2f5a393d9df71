package io.sluice.storage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One shard behind the storage adapter: the unit of data of a protocol (an MQTT topic partition,
 * a Kafka-style partition), stored by one engine. Both engines ({@code memory}, {@code segment})
 * implement this, and the adapter contract tests run against both. All methods are thread-safe;
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

    /** Records whose key equals {@code key}, from {@code fromOffset} on, oldest first, at most {@code maxRecords}. */
    default List<StoredRecord> readByKey(byte[] key, long fromOffset, int maxRecords) {
        return scan(fromOffset, maxRecords, r -> r.key() != null && Arrays.equals(r.key(), key));
    }

    /** Records carrying {@code tag}, from {@code fromOffset} on, oldest first, at most {@code maxRecords}. */
    default List<StoredRecord> readByTag(String tag, long fromOffset, int maxRecords) {
        return scan(fromOffset, maxRecords, r -> r.tags().contains(tag));
    }

    /** The scan behind {@link #readByKey} and {@link #readByTag}: reads on until the end or enough matches. */
    private List<StoredRecord> scan(long fromOffset, int maxRecords, java.util.function.Predicate<StoredRecord> match) {
        List<StoredRecord> found = new ArrayList<>();
        long offset = Math.max(fromOffset, startOffset());
        long end = endOffset();
        while (found.size() < maxRecords && offset < end) {
            List<StoredRecord> chunk = readByOffset(offset, 1024, 4 << 20);
            if (chunk.isEmpty()) {
                break;
            }
            for (StoredRecord record : chunk) {
                if (match.test(record) && found.size() < maxRecords) {
                    found.add(record);
                }
            }
            offset = chunk.get(chunk.size() - 1).offset() + 1;
        }
        return found;
    }

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
