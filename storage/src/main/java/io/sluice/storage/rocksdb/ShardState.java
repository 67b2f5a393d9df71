package io.sluice.storage.rocksdb;

import java.nio.ByteBuffer;

/**
 * One RocksDB shard's marks, written in the same {@code WriteBatch} as the records they describe,
 * so after a crash they agree with what the write-ahead log replayed. Value layout (40 bytes,
 * big-endian): start, purged, end, bytes, maxTimestamp.
 *
 * @param start        first readable offset
 * @param purged       offsets below it are physically gone (purging trails {@code start})
 * @param end          next offset to assign; every offset below it was acknowledged once
 * @param bytes        stored record bytes of offsets at or above {@code purged}
 * @param maxTimestamp largest record timestamp written, -1 when none: the time index's running maximum
 */
record ShardState(long start, long purged, long end, long bytes, long maxTimestamp) {
    static final ShardState EMPTY = new ShardState(0, 0, 0, 0, -1);
    private static final int SIZE = 5 * Long.BYTES;

    byte[] toBytes() {
        return ByteBuffer.allocate(SIZE).putLong(start).putLong(purged).putLong(end).putLong(bytes).putLong(maxTimestamp)
                .array();
    }

    static ShardState fromBytes(byte[] value) {
        if (value.length != SIZE) {
            throw new IllegalArgumentException("shard state of " + value.length + " bytes, expected " + SIZE);
        }
        ByteBuffer buffer = ByteBuffer.wrap(value);
        return new ShardState(buffer.getLong(), buffer.getLong(), buffer.getLong(), buffer.getLong(), buffer.getLong());
    }
}
