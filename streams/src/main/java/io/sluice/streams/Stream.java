package io.sluice.streams;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

import io.sluice.storage.Record;
import io.sluice.storage.RecordFlyweight;
import io.sluice.storage.StorageAdapter;
import io.sluice.storage.StoredRecord;
import io.sluice.storage.TopicRouter;
import io.sluice.streams.internal.StreamAppender;

/**
 * One stream: an MQTT topic filter appended to {@link #partitions()} shards {@code <name>_<n>} of
 * the storage adapter, written by its own appender thread and read by offset or time by anyone.
 * Thread-safe.
 *
 * <p>Writes go through {@link #capture} (MQTT) and {@link #append} (Kafka producers); both return at
 * once and report durability later, so no caller ever waits for storage. Reads go to the shard.
 */
public final class Stream {
    private final StreamSettings settings;
    private final boolean configured;
    private final StorageAdapter adapter;
    private final String[] shards;
    private final AtomicLongArray counters = new AtomicLongArray(StreamCounter.values().length);
    private StreamAppender appender;

    Stream(StreamSettings settings, boolean configured, StorageAdapter adapter) {
        this.settings = settings;
        this.configured = configured;
        this.adapter = adapter;
        this.shards = new String[settings.partitions()];
        for (int p = 0; p < shards.length; p++) {
            shards[p] = TopicRouter.shardName(settings.name(), p);
        }
    }

    void start(StreamAppender writer) {
        this.appender = writer;
        writer.start();
    }

    AtomicLongArray counters() {
        return counters;
    }

    public String name() {
        return settings.name();
    }

    public StreamSettings settings() {
        return settings;
    }

    /** The MQTT topic filter whose messages the stream appends. */
    public String topic() {
        return settings.topic();
    }

    public int partitions() {
        return shards.length;
    }

    /** Whether the stream is defined in the configuration file (else it was created at run time). */
    public boolean isConfigured() {
        return configured;
    }

    /** The storage shard holding {@code partition}. */
    public String shard(int partition) {
        return shards[partition];
    }

    /**
     * Appends a captured MQTT message to the partition its {@code partition_key} picks. Never
     * blocks: returns false, counted, when the stream's queue is full or the stream is closed, and
     * then {@code onDurable} is not run. Otherwise {@code onDurable} (which may be null) runs on the
     * appender thread once the record is durable under the flush policy, or is refused
     * ({@link io.sluice.storage.Receipt#refuse}) when the append fails.
     */
    public boolean capture(CapturedMessage message, Runnable onDurable) {
        return appender.capture(message, onDurable);
    }

    /**
     * Appends records to one partition, in order, together. With a {@code producer}, the batch is
     * appended at most once per producer sequence range (see {@link ProducerBatch}). Returns at once;
     * {@code done} gets the outcome on the appender thread, after the records are durable.
     */
    public void append(int partition, List<Record> records, ProducerBatch producer, Consumer<AppendResult> done) {
        checkPartition(partition);
        if (records.isEmpty()) {
            throw new IllegalArgumentException("stream '" + name() + "': an append needs at least one record");
        }
        if (producer != null && producer.count() != records.size()) {
            throw new IllegalArgumentException("stream '" + name() + "': producer batch counts " + producer.count()
                    + " records but " + records.size() + " were given");
        }
        appender.append(partition, records, producer, done);
    }

    /** Records of {@code partition} from {@code offset}; see {@link StorageAdapter#readByOffset}. */
    public List<StoredRecord> read(int partition, long offset, int maxRecords, int maxBytes) {
        return adapter.readByOffset(shard(checkPartition(partition)), offset, maxRecords, maxBytes);
    }

    /**
     * The records {@link #read(int, long, int, int)} gives, each handed to {@code visitor} in place
     * (valid only during the call, nothing copied); returns how many. See
     * {@link StorageAdapter#readByOffset(String, long, int, int, Consumer)}.
     */
    public int read(int partition, long offset, int maxRecords, int maxBytes, Consumer<RecordFlyweight> visitor) {
        return adapter.readByOffset(shard(checkPartition(partition)), offset, maxRecords, maxBytes, visitor);
    }

    /** The first readable offset of {@code partition}. */
    public long startOffset(int partition) {
        return adapter.startOffset(shard(checkPartition(partition)));
    }

    /** The offset after the last durable record of {@code partition}: Kafka's high watermark. */
    public long endOffset(int partition) {
        return adapter.endOffset(shard(checkPartition(partition)));
    }

    /** The first offset of {@code partition} with a timestamp >= {@code timestamp}, or the end offset. */
    public long offsetForTimestamp(int partition, long timestamp) {
        return adapter.offsetForTimestamp(shard(checkPartition(partition)), timestamp);
    }

    /** Durably records that consumer group {@code group} has read {@code partition} up to {@code offset}. */
    public void commitOffset(String group, int partition, long offset) {
        adapter.commitOffset(group, shard(checkPartition(partition)), offset);
    }

    /** The offset {@code group} last committed for {@code partition}, if any. */
    public OptionalLong committedOffset(String group, int partition) {
        return adapter.groupOffset(group, shard(checkPartition(partition)));
    }

    /** The current value of a counter. */
    public long counter(StreamCounter counter) {
        return counters.get(counter.ordinal());
    }

    private int checkPartition(int partition) {
        if (partition < 0 || partition >= shards.length) {
            throw new IndexOutOfBoundsException("stream '" + name() + "' has partitions 0 to " + (shards.length - 1)
                    + ", not " + partition);
        }
        return partition;
    }

    void close() {
        if (appender != null) {
            appender.close();
        }
    }

    @Override
    public String toString() {
        return "Stream[" + name() + ", topic " + topic() + ", " + partitions() + " partitions]";
    }
}
