package io.sluice.storage.rocksdb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The byte layouts of the RocksDB engine's keys and values; every integer big-endian, so byte
 * order is numeric order and an iterator walks offsets and timestamps in order.
 *
 * <pre>
 *  column family          key                                                   value
 *  shard:&lt;name&gt;           offset int64                                           the record ({@code RecordCodec})
 *  key-index              shardId int32, keyLength int32, key, offset int64     empty
 *  tag-index              shardId int32, tagLength int32, UTF-8 tag, offset     empty
 *  time-index             shardId int32, maxTimestamp int64                     first offset int64 whose
 *                                                                               running maximum timestamp is it
 *  default (metadata)     "shard/" UTF-8 name                                   shardId int32
 *                         "state/" shardId int32                                {@link ShardState}
 * </pre>
 *
 * The length before a key or tag keeps one term's entries apart from a longer term that starts
 * with the same bytes, so "every entry with this prefix" is exactly one term.
 */
final class RocksKeys {
    static final int OFFSET_BYTES = Long.BYTES;
    private static final byte[] SHARD_ID_PREFIX = "shard/".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] STATE_PREFIX = "state/".getBytes(StandardCharsets.US_ASCII);

    private RocksKeys() {
    }

    static byte[] offsetKey(long offset) {
        return ByteBuffer.allocate(OFFSET_BYTES).putLong(offset).array();
    }

    /** The offset in the last 8 bytes of {@code key}: a record key or an index key. */
    static long trailingOffset(byte[] key) {
        return ByteBuffer.wrap(key, key.length - OFFSET_BYTES, OFFSET_BYTES).getLong();
    }

    static long readLong(byte[] bytes) {
        return ByteBuffer.wrap(bytes).getLong();
    }

    static byte[] termKey(int shardId, byte[] term, long offset) {
        return ByteBuffer.allocate(2 * Integer.BYTES + term.length + OFFSET_BYTES)
                .putInt(shardId).putInt(term.length).put(term).putLong(offset).array();
    }

    static byte[] timeKey(int shardId, long timestamp) {
        return ByteBuffer.allocate(Integer.BYTES + Long.BYTES).putInt(shardId).putLong(timestamp).array();
    }

    /** Every key of one shard in an index column family lies in [shardStart(id), shardStart(id + 1)). */
    static byte[] shardStart(int shardId) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(shardId).array();
    }

    static byte[] shardIdKey(String shard) {
        byte[] name = shard.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(SHARD_ID_PREFIX.length + name.length).put(SHARD_ID_PREFIX).put(name).array();
    }

    static byte[] shardIdPrefix() {
        return SHARD_ID_PREFIX.clone();
    }

    /** The shard name in a key made by {@link #shardIdKey}. */
    static String shardOfIdKey(byte[] key) {
        return new String(key, SHARD_ID_PREFIX.length, key.length - SHARD_ID_PREFIX.length, StandardCharsets.UTF_8);
    }

    static byte[] stateKey(int shardId) {
        return ByteBuffer.allocate(STATE_PREFIX.length + Integer.BYTES).put(STATE_PREFIX).putInt(shardId).array();
    }

    static byte[] intBytes(int value) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(value).array();
    }

    static int readInt(byte[] bytes) {
        return ByteBuffer.wrap(bytes).getInt();
    }

    /** True when {@code key} starts with {@code prefix}. */
    static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && java.util.Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
