package io.sluice.streams.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogSettings;
import io.sluice.storage.Record;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageAdapter;
import io.sluice.storage.StoredRecord;

/**
 * The streams' own durable state, kept as a compacted shard {@value #SHARD} of the storage adapter
 * (flush {@code always}: every change is fsynced before it returns). Keys are UTF-8 strings, the
 * latest value per key wins and a tombstone removes it:
 * <pre>
 *  stream/&lt;name&gt;          the settings of a stream created at run time (Kafka CreateTopics), as properties text
 *  producers/&lt;shard&gt;      the producer-state snapshot of one partition ({@link ProducerStates})
 *  producer-ids            the first producer id not yet handed out ({@link ProducerIds})
 *  groups/&lt;group id&gt;     a consumer group's settled state, saved by the Kafka listener
 * </pre>
 * The name cannot clash with a stream's partition, which always ends in {@code _<digits>}.
 * Thread-safe.
 */
public final class StateLog {
    /** The shard's name. */
    public static final String SHARD = "__sluice_streams";
    private static final ShardSettings SETTINGS = ShardSettings.segment(LogSettings.builder()
            .segmentBytes(16 * 1024 * 1024)
            .flush(FlushPolicy.ALWAYS)
            .cleanupPolicy(CleanupPolicy.COMPACT)
            .retentionMs(LogSettings.UNLIMITED)
            .build());

    private final StorageAdapter adapter;
    private final Map<String, byte[]> entries = new TreeMap<>();

    /** Opens the state in {@code adapter}, creating its shard the first time, and reads it all. */
    public StateLog(StorageAdapter adapter) {
        this.adapter = adapter;
        if (!adapter.shardExists(SHARD)) {
            adapter.createShard(SHARD, SETTINGS);
        }
        long offset = adapter.startOffset(SHARD);
        long end = adapter.endOffset(SHARD);
        while (offset < end) {
            List<StoredRecord> chunk = adapter.readByOffset(SHARD, offset, 4096, 16 << 20);
            if (chunk.isEmpty()) {
                break;
            }
            for (StoredRecord record : chunk) {
                String key = new String(record.key(), StandardCharsets.UTF_8);
                if (record.value() == null) {
                    entries.remove(key);
                } else {
                    entries.put(key, record.value());
                }
            }
            offset = chunk.get(chunk.size() - 1).offset() + 1;
        }
    }

    /** The value of {@code key}, or null. */
    public synchronized byte[] get(String key) {
        return entries.get(key);
    }

    /** Every entry whose key starts with {@code prefix}, by key without the prefix. */
    public synchronized Map<String, byte[]> entries(String prefix) {
        Map<String, byte[]> found = new TreeMap<>();
        for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
            if (entry.getKey().startsWith(prefix)) {
                found.put(entry.getKey().substring(prefix.length()), entry.getValue());
            }
        }
        return found;
    }

    /** Sets {@code key} durably. */
    public synchronized void put(String key, byte[] value) {
        adapter.write(SHARD, Record.of(key.getBytes(StandardCharsets.UTF_8), value, System.currentTimeMillis()));
        entries.put(key, value);
    }

    /** Removes {@code key} durably; nothing happens if it is not set. */
    public synchronized void remove(String key) {
        if (entries.remove(key) != null) {
            adapter.write(SHARD, Record.of(key.getBytes(StandardCharsets.UTF_8), null, System.currentTimeMillis()));
        }
    }
}
