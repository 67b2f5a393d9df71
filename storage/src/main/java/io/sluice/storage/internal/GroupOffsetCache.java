package io.sluice.storage.internal;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

import io.sluice.storage.StorageException;
import io.sluice.storage.rocksdb.RocksLibrary;

/**
 * The consumer-group offset cache of {@code enable_cache = true} ({@value #DIRECTORY}): a small
 * RocksDB instance whose writes go to its write-ahead log without a sync, so a commit returns
 * after a system call instead of an fsync, yet survives a killed process. Keys are the offsets
 * log's ({@code <group> NUL <shard>}); a value is the committed offset and its commit sequence,
 * 8 bytes each, big-endian. About 2 MiB of native memory (a 1 MiB memtable and block cache).
 */
final class GroupOffsetCache implements AutoCloseable {
    static final String DIRECTORY = "group-offsets-cache";

    /** One cached commit. */
    interface Visitor {
        void visit(byte[] key, long offset, long sequence);
    }

    static {
        RocksLibrary.load();
    }

    private final Path dir;
    private final LRUCache blockCache = new LRUCache(1024 * 1024);
    private final Options options;
    private final WriteOptions unsynced = new WriteOptions().setSync(false);
    private final RocksDB db;

    private GroupOffsetCache(Path dir) throws RocksDBException {
        this.dir = dir;
        this.options = new Options().setCreateIfMissing(true).setInfoLogLevel(InfoLogLevel.WARN_LEVEL).setKeepLogFileNum(2)
                .setWriteBufferSize(1024 * 1024).setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(blockCache));
        this.db = RocksDB.open(options, dir.toString());
    }

    /** Opens (creating) the cache in {@code dir}; a damaged one stops the open with RocksDB's reason. */
    static GroupOffsetCache open(Path dir) {
        try {
            return new GroupOffsetCache(dir);
        } catch (RocksDBException e) {
            throw new StorageException("opening the group-offset cache " + dir + " failed: " + e.getMessage(), e);
        }
    }

    void put(byte[] key, long offset, long sequence) {
        try {
            db.put(unsynced, key, ByteBuffer.allocate(2 * Long.BYTES).putLong(offset).putLong(sequence).array());
        } catch (RocksDBException e) {
            throw new StorageException("writing to the group-offset cache " + dir + " failed: " + e.getMessage(), e);
        }
    }

    void delete(byte[] key) {
        try {
            db.delete(unsynced, key);
        } catch (RocksDBException e) {
            throw new StorageException("deleting from the group-offset cache " + dir + " failed: " + e.getMessage(), e);
        }
    }

    void forEach(Visitor visitor) {
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                ByteBuffer value = ByteBuffer.wrap(it.value());
                visitor.visit(it.key(), value.getLong(), value.getLong());
            }
            it.status();
        } catch (RocksDBException e) {
            throw new StorageException("reading the group-offset cache " + dir + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        db.close();
        unsynced.close();
        options.close();
        blockCache.close();
    }
}
