package io.sluice.storage;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;

import io.sluice.storage.internal.LocalStorageAdapter;

/**
 * The storage adapter: named shards, each stored by the engine its settings choose
 * ({@code memory}, {@code segment} or {@code rocksdb}), with writes, reads by offset, key, tag and timestamp, and
 * consumer-group offsets. Every method is thread-safe. Errors name the shard and the offset:
 * {@link UnknownShardException}, {@link ShardExistsException}, {@link OffsetOutOfRangeException}.
 * Topics map onto shards through {@link TopicRouter}.
 *
 * <p>Callers use this interface and {@link #open}; the implementation may gain methods, so do not
 * implement it outside this module.
 */
public interface StorageAdapter extends AutoCloseable {

    /**
     * Opens the adapter on {@code dir} (created if missing): every shard and consumer-group offset
     * created before is there again (a memory shard comes back empty). Uses its own background
     * threads, stopped by {@link #close}.
     */
    static StorageAdapter open(Path dir) {
        return LocalStorageAdapter.open(dir, null, StorageAdapterSettings.defaults());
    }

    /** As {@link #open(Path)}, with background threads shared with other logs and closed by the caller. */
    static StorageAdapter open(Path dir, LogScheduler scheduler) {
        return LocalStorageAdapter.open(dir, scheduler, StorageAdapterSettings.defaults());
    }

    /**
     * As {@link #open(Path, LogScheduler)} (a null scheduler: threads of its own) with adapter-wide
     * settings: the RocksDB engine's memory and the group-offset cache.
     */
    static StorageAdapter open(Path dir, LogScheduler scheduler, StorageAdapterSettings settings) {
        return LocalStorageAdapter.open(dir, scheduler, settings);
    }

    /** Creates a shard; its existence and settings are durable before this returns. */
    void createShard(String shard, ShardSettings settings);

    /** Deletes a shard, its records and its consumer-group offsets. */
    void deleteShard(String shard);

    boolean shardExists(String shard);

    /** Names of all shards. */
    Set<String> shards();

    ShardSettings shardSettings(String shard);

    /** Appends one record; returns its offset once durable under the shard's flush policy. */
    long write(String shard, Record record);

    /** Appends records in order, together; returns their offsets once durable. */
    long[] batchWrite(String shard, List<Record> records);

    /** See {@link Shard#readByOffset}. */
    List<StoredRecord> readByOffset(String shard, long offset, int maxRecords, int maxBytes);

    /**
     * The same records as {@link #readByOffset(String, long, int, int)}, visited in place: see
     * {@link Shard#readByOffset(long, int, int, Consumer)}. Returns how many were visited.
     */
    int readByOffset(String shard, long offset, int maxRecords, int maxBytes, Consumer<RecordFlyweight> visitor);

    /** See {@link Shard#readByKey}: served from the engine's key index. */
    List<StoredRecord> readByKey(String shard, byte[] key, long fromOffset, int maxRecords);

    /** See {@link Shard#readByTag}: served from the engine's tag index. */
    List<StoredRecord> readByTag(String shard, String tag, long fromOffset, int maxRecords);

    /** See {@link Shard#offsetForTimestamp}. */
    long offsetForTimestamp(String shard, long timestamp);

    long startOffset(String shard);

    long endOffset(String shard);

    /** Trims a shard: offsets below {@code offset} become unreadable. */
    void deleteRecordsBefore(String shard, long offset);

    /**
     * Records that consumer group {@code group} has consumed {@code shard} up to {@code offset}
     * (the next offset it will read). Durable before it returns; with {@code enable_cache}, in the
     * RocksDB offset cache before it returns and in the durable log soon after
     * ({@link StorageAdapterSettings#enableCache}).
     *
     * @throws OffsetOutOfRangeException when {@code offset} is outside [0, end offset]
     */
    void commitOffset(String group, String shard, long offset);

    /** The last offset {@code group} committed for {@code shard}, if any. */
    OptionalLong groupOffset(String group, String shard);

    /** Every consumer group with at least one committed offset. */
    Set<String> groups();

    /** Closes every shard cleanly. */
    @Override
    void close();
}
