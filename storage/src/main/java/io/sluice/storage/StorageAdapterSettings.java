package io.sluice.storage;

import io.sluice.settings.InvalidSettingException;

/**
 * Settings of one storage adapter as a whole (rather than of one shard): the memory bounds of its
 * RocksDB instance, shared by all its {@code rocksdb} shards, and how consumer-group offsets are
 * committed. Checked when built; a bad value throws {@link InvalidSettingException} naming the key.
 *
 * @param rocksdbBlockCacheBytes       {@code rocksdb_block_cache_bytes}: the one LRU block cache of the
 *                                     instance; memtables are charged to it too, so it bounds both
 * @param rocksdbWriteBufferBytes      {@code rocksdb_write_buffer_bytes}: all memtables of all shards
 *                                     together; past it RocksDB flushes the largest
 * @param rocksdbShardWriteBufferBytes {@code rocksdb_shard_write_buffer_bytes}: one shard's memtable
 *                                     before it is flushed to an SST file
 * @param enableCache                  {@code enable_cache}: a group-offset commit is acknowledged from a
 *                                     RocksDB cache and written to the durable offsets log in the background
 */
public record StorageAdapterSettings(long rocksdbBlockCacheBytes, long rocksdbWriteBufferBytes,
                                     long rocksdbShardWriteBufferBytes, boolean enableCache) {

    public static final String ROCKSDB_BLOCK_CACHE_BYTES = "rocksdb_block_cache_bytes";
    public static final String ROCKSDB_WRITE_BUFFER_BYTES = "rocksdb_write_buffer_bytes";
    public static final String ROCKSDB_SHARD_WRITE_BUFFER_BYTES = "rocksdb_shard_write_buffer_bytes";
    public static final String ENABLE_CACHE = "enable_cache";

    private static final long MIB = 1024 * 1024;

    public StorageAdapterSettings {
        atLeast(ROCKSDB_BLOCK_CACHE_BYTES, rocksdbBlockCacheBytes, MIB);
        atLeast(ROCKSDB_WRITE_BUFFER_BYTES, rocksdbWriteBufferBytes, MIB);
        atLeast(ROCKSDB_SHARD_WRITE_BUFFER_BYTES, rocksdbShardWriteBufferBytes, 64 * 1024);
        if (rocksdbWriteBufferBytes > rocksdbBlockCacheBytes) {
            throw new InvalidSettingException(ROCKSDB_WRITE_BUFFER_BYTES, "must be at most " + ROCKSDB_BLOCK_CACHE_BYTES
                    + " (" + rocksdbBlockCacheBytes + "), because memtables are charged to the block cache; got "
                    + rocksdbWriteBufferBytes);
        }
    }

    /** 64 MiB of block cache holding up to 32 MiB of memtables, 4 MiB per shard; no offset cache. */
    public static StorageAdapterSettings defaults() {
        return new StorageAdapterSettings(64 * MIB, 32 * MIB, 4 * MIB, false);
    }

    /** A copy with {@code enable_cache} set. */
    public StorageAdapterSettings withEnableCache(boolean enabled) {
        return new StorageAdapterSettings(rocksdbBlockCacheBytes, rocksdbWriteBufferBytes, rocksdbShardWriteBufferBytes,
                enabled);
    }

    /**
     * A copy with one value set by its configuration key, parsed from text.
     *
     * @throws InvalidSettingException naming the key when it is unknown or the value does not parse
     */
    public StorageAdapterSettings with(String key, String value) {
        return switch (key) {
            case ROCKSDB_BLOCK_CACHE_BYTES -> new StorageAdapterSettings(parseLong(key, value), rocksdbWriteBufferBytes,
                    rocksdbShardWriteBufferBytes, enableCache);
            case ROCKSDB_WRITE_BUFFER_BYTES -> new StorageAdapterSettings(rocksdbBlockCacheBytes, parseLong(key, value),
                    rocksdbShardWriteBufferBytes, enableCache);
            case ROCKSDB_SHARD_WRITE_BUFFER_BYTES -> new StorageAdapterSettings(rocksdbBlockCacheBytes,
                    rocksdbWriteBufferBytes, parseLong(key, value), enableCache);
            case ENABLE_CACHE -> withEnableCache(parseBoolean(key, value));
            default -> throw new InvalidSettingException(key, "unknown storage adapter setting (value '" + value + "')");
        };
    }

    private static void atLeast(String key, long value, long min) {
        if (value < min) {
            throw new InvalidSettingException(key, "must be at least " + min + ", got " + value);
        }
    }

    private static long parseLong(String key, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException | NullPointerException e) {
            throw new InvalidSettingException(key, "expected a whole number, got '" + value + "'", e);
        }
    }

    private static boolean parseBoolean(String key, String value) {
        if ("true".equals(value) || "false".equals(value)) {
            return Boolean.parseBoolean(value);
        }
        throw new InvalidSettingException(key, "expected true or false, got '" + value + "'");
    }
}
