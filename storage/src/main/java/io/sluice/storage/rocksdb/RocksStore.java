package io.sluice.storage.rocksdb;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.IndexType;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteBufferManager;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.LogScheduler;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageAdapterSettings;
import io.sluice.storage.StorageException;

/**
 * The one RocksDB instance of a storage adapter ({@code <adapter dir>/rocksdb/}): a column family
 * per shard ({@code shard:<name>}), three index column families shared by all shards (keys carry
 * the shard's id, see {@link RocksKeys}) and the default column family for each shard's id and
 * {@link ShardState}.
 *
 * <h2>Memory</h2>
 * One LRU block cache of {@code rocksdb_block_cache_bytes} holds data, index and filter blocks of
 * every column family, and every memtable is charged to it through one write-buffer manager capped
 * at {@code rocksdb_write_buffer_bytes}; a shard's memtable flushes at
 * {@code rocksdb_shard_write_buffer_bytes}. So the instance's native memory stays near the block
 * cache size however many shards it has. The write-ahead log is capped at four times the write
 * buffers, which forces a flush of shards that write rarely.
 *
 * <p>Every table file has a full Bloom filter of 10 bits per key (about
 * 1 % false positives), cached and charged like the index blocks (level-0 ones pinned), so a
 * record's {@code get} skips the level-0 files and levels that do not hold it. The last level gets
 * none ({@code optimize_filters_for_hits}): reads by offset, key or tag fetch records that exist,
 * and most keys live there, so that keeps the filters to about a tenth of 1.25 bytes per key. The
 * index column families are only seeked, which whole-key filters do not serve.
 *
 * <p>Index and filter blocks are partitioned into 4 KiB blocks under a small top-level index per
 * file, pinned in the cache, so no cache entry grows with a table file. A whole per-file index
 * block does: the tag index's one 53 MB file at 10 million records had a 1.26 MB index block,
 * larger than one of the cache's 64 shards (1 MiB at the default 64 MiB), so every tag read read
 * it again (tag reads there became 16 times faster; key reads at a million records 1.5 times
 * slower, see benchmarks.md section 8). A high-priority pool for the partitions was measured and
 * left out: at a tenth of the cache it changed nothing, at half it kept every partition but cost
 * tag reads 1.5 times the data block misses.
 *
 * <h2>Shard lifecycle</h2>
 * The adapter creates the column family before it records the shard in its catalog and drops it
 * after the catalog forgot the shard, so a crash in between leaves only an orphan column family,
 * dropped at the next open. A catalogued shard without its column family stops the open.
 *
 * <p>Creation and deletion are serialised by the adapter; everything else is thread-safe.
 */
public final class RocksStore implements AutoCloseable {
    /** The directory under the adapter's directory. */
    public static final String DIRECTORY = "rocksdb";
    static final String SHARD_FAMILY_PREFIX = "shard:";
    private static final String KEY_INDEX = "key-index";
    private static final String TAG_INDEX = "tag-index";
    private static final String TIME_INDEX = "time-index";
    private static final Logger LOG = LoggerFactory.getLogger(RocksStore.class);
    private static final double BLOOM_BITS_PER_KEY = 10;
    /** Index and filter partitions of this size, like data blocks: no cache entry grows with a table file. */
    private static final long METADATA_BLOCK_BYTES = 4096;

    static {
        RocksLibrary.load();
    }

    private final Path dir;
    private final LRUCache cache;
    private final BloomFilter bloom;
    private final WriteBufferManager writeBuffers;
    private final ColumnFamilyOptions familyOptions;
    private final DBOptions dbOptions;
    private final WriteOptions syncWrite;
    private final RocksDB db;
    private final ColumnFamilyHandle metadata;
    private final ColumnFamilyHandle keyIndex;
    private final ColumnFamilyHandle tagIndex;
    private final ColumnFamilyHandle timeIndex;
    private final Map<String, ColumnFamilyHandle> shardFamilies = new ConcurrentHashMap<>();
    private final Map<String, Integer> shardIds = new ConcurrentHashMap<>();
    private int nextShardId;

    private RocksStore(Path dir, StorageAdapterSettings settings, boolean mustExist) throws RocksDBException {
        this.dir = dir;
        this.cache = new LRUCache(settings.rocksdbBlockCacheBytes());
        this.writeBuffers = new WriteBufferManager(settings.rocksdbWriteBufferBytes(), cache);
        this.bloom = new BloomFilter(BLOOM_BITS_PER_KEY, false);
        this.familyOptions = new ColumnFamilyOptions()
                .setWriteBufferSize(settings.rocksdbShardWriteBufferBytes())
                .setMaxWriteBufferNumber(2)
                .setOptimizeFiltersForHits(true)
                .setTableFormatConfig(new BlockBasedTableConfig()
                        .setBlockCache(cache)
                        .setFilterPolicy(bloom)
                        .setIndexType(IndexType.kTwoLevelIndexSearch)
                        .setPartitionFilters(true)
                        .setMetadataBlockSize(METADATA_BLOCK_BYTES)
                        .setPinTopLevelIndexAndFilter(true)
                        .setCacheIndexAndFilterBlocks(true)
                        .setPinL0FilterAndIndexBlocksInCache(true));
        this.dbOptions = new DBOptions()
                .setCreateIfMissing(!mustExist)
                .setCreateMissingColumnFamilies(true)
                .setWriteBufferManager(writeBuffers)
                .setMaxTotalWalSize(4 * settings.rocksdbWriteBufferBytes())
                .setMaxBackgroundJobs(2)
                .setMaxOpenFiles(512)
                .setKeepLogFileNum(3)
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
                .setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery);
        this.syncWrite = new WriteOptions().setSync(true);
        List<ColumnFamilyDescriptor> descriptors = descriptors(dir, mustExist);
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        this.db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
        Map<String, ColumnFamilyHandle> byName = new HashMap<>();
        for (int i = 0; i < descriptors.size(); i++) {
            byName.put(new String(descriptors.get(i).getName(), StandardCharsets.UTF_8), handles.get(i));
        }
        this.metadata = byName.remove(new String(RocksDB.DEFAULT_COLUMN_FAMILY, StandardCharsets.UTF_8));
        this.keyIndex = byName.remove(KEY_INDEX);
        this.tagIndex = byName.remove(TAG_INDEX);
        this.timeIndex = byName.remove(TIME_INDEX);
        byName.forEach((family, handle) -> {
            if (family.startsWith(SHARD_FAMILY_PREFIX)) {
                shardFamilies.put(family.substring(SHARD_FAMILY_PREFIX.length()), handle);
            } else {
                handle.close();
            }
        });
        loadShardIds();
    }

    private List<ColumnFamilyDescriptor> descriptors(Path dir, boolean mustExist) throws RocksDBException {
        List<byte[]> names = new ArrayList<>();
        try (Options options = new Options()) {
            names.addAll(RocksDB.listColumnFamilies(options, dir.toString()));
        } catch (RocksDBException e) {
            if (mustExist) {
                throw e;
            }
        }
        for (String needed : List.of(new String(RocksDB.DEFAULT_COLUMN_FAMILY, StandardCharsets.UTF_8), KEY_INDEX,
                TAG_INDEX, TIME_INDEX)) {
            byte[] name = needed.getBytes(StandardCharsets.UTF_8);
            if (names.stream().noneMatch(n -> java.util.Arrays.equals(n, name))) {
                names.add(name);
            }
        }
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        for (byte[] name : names) {
            descriptors.add(new ColumnFamilyDescriptor(name, familyOptions));
        }
        return descriptors;
    }

    private void loadShardIds() throws RocksDBException {
        byte[] prefix = RocksKeys.shardIdPrefix();
        try (RocksIterator it = db.newIterator(metadata)) {
            for (it.seek(prefix); it.isValid() && RocksKeys.startsWith(it.key(), prefix); it.next()) {
                int id = RocksKeys.readInt(it.value());
                shardIds.put(RocksKeys.shardOfIdKey(it.key()), id);
                nextShardId = Math.max(nextShardId, id + 1);
            }
            it.status();
        }
    }

    /**
     * Opens the instance in {@code dir} holding exactly the {@code catalogued} shards: orphans of an
     * interrupted creation or deletion are dropped.
     *
     * @param mustExist true when shards are catalogued on this engine, so a missing database is an error
     * @throws StorageException naming the directory and RocksDB's reason when the database is missing,
     *                          corrupt or lacks a catalogued shard
     */
    public static RocksStore open(Path dir, StorageAdapterSettings settings, Set<String> catalogued, boolean mustExist) {
        RocksStore store;
        try {
            store = new RocksStore(dir, settings, mustExist);
        } catch (RocksDBException e) {
            throw new StorageException("opening the RocksDB database " + dir + " failed: " + reason(e), e);
        }
        try {
            store.reconcile(catalogued);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        LOG.info("RocksDB database {} opened with {} shards", dir, store.shardFamilies.size());
        return store;
    }

    private void reconcile(Set<String> catalogued) {
        for (String shard : new ArrayList<>(shardIds.keySet())) {
            if (!catalogued.contains(shard)) {
                LOG.warn("Dropping shard '{}' from the RocksDB database {}: the adapter does not know it (creation or "
                        + "deletion interrupted)", shard, dir);
                dropShard(shard);
            }
        }
        for (String shard : new ArrayList<>(shardFamilies.keySet())) {
            if (!catalogued.contains(shard)) {
                dropShard(shard);
            }
        }
        for (String shard : catalogued) {
            if (!shardFamilies.containsKey(shard) || !shardIds.containsKey(shard)) {
                throw new StorageException("the RocksDB database " + dir + " has no column family for shard '" + shard
                        + "' (the database was replaced or damaged)");
            }
        }
    }

    public Path directory() {
        return dir;
    }

    /** Creates the shard's column family, id and empty state, durably. */
    public synchronized void createShard(String shard) {
        if (shardFamilies.containsKey(shard) || shardIds.containsKey(shard)) {
            dropShard(shard);
        }
        int id = nextShardId++;
        try (WriteBatch batch = new WriteBatch()) {
            ColumnFamilyHandle family = db.createColumnFamily(new ColumnFamilyDescriptor(
                    (SHARD_FAMILY_PREFIX + shard).getBytes(StandardCharsets.UTF_8), familyOptions));
            shardFamilies.put(shard, family);
            batch.put(metadata, RocksKeys.shardIdKey(shard), RocksKeys.intBytes(id));
            batch.put(metadata, RocksKeys.stateKey(id), ShardState.EMPTY.toBytes());
            db.write(syncWrite, batch);
            shardIds.put(shard, id);
        } catch (RocksDBException e) {
            throw failure("creating shard '" + shard + "'", e);
        }
    }

    /** Opens a shard {@link #createShard} made, with the state its last write left. */
    public RocksShard openShard(String shard, ShardSettings settings, LogScheduler scheduler) {
        Integer id = shardIds.get(shard);
        ColumnFamilyHandle family = shardFamilies.get(shard);
        if (id == null || family == null) {
            throw new StorageException("the RocksDB database " + dir + " has no shard '" + shard + "'");
        }
        try {
            byte[] state = db.get(metadata, RocksKeys.stateKey(id));
            ShardState loaded = state == null ? ShardState.EMPTY : ShardState.fromBytes(state);
            return new RocksShard(this, shard, id, family, settings, loaded, scheduler);
        } catch (RocksDBException | IllegalArgumentException e) {
            throw new StorageException("reading the state of shard '" + shard + "' in the RocksDB database " + dir
                    + " failed: " + e.getMessage(), e);
        }
    }

    /** Drops the shard's column family and every index entry and mark of it (the shard is closed). */
    public synchronized void dropShard(String shard) {
        try {
            Integer id = shardIds.remove(shard);
            if (id != null) {
                try (WriteBatch batch = new WriteBatch()) {
                    batch.delete(metadata, RocksKeys.shardIdKey(shard));
                    batch.delete(metadata, RocksKeys.stateKey(id));
                    for (ColumnFamilyHandle index : List.of(keyIndex, tagIndex, timeIndex)) {
                        batch.deleteRange(index, RocksKeys.shardStart(id), RocksKeys.shardStart(id + 1));
                    }
                    db.write(syncWrite, batch);
                }
            }
            ColumnFamilyHandle family = shardFamilies.remove(shard);
            if (family != null) {
                db.dropColumnFamily(family);
                family.close();
            }
        } catch (RocksDBException e) {
            throw failure("dropping shard '" + shard + "'", e);
        }
    }

    RocksDB db() {
        return db;
    }

    ColumnFamilyHandle metadata() {
        return metadata;
    }

    ColumnFamilyHandle keyIndex() {
        return keyIndex;
    }

    ColumnFamilyHandle tagIndex() {
        return tagIndex;
    }

    ColumnFamilyHandle timeIndex() {
        return timeIndex;
    }

    /** fsyncs the write-ahead log: everything written so far survives a power cut. */
    void syncWal() {
        try {
            db.flushWal(true);
        } catch (RocksDBException e) {
            throw failure("syncing the write-ahead log", e);
        }
    }

    StorageException failure(String what, RocksDBException e) {
        return new StorageException(what + " in the RocksDB database " + dir + " failed: " + reason(e), e);
    }

    private static String reason(RocksDBException e) {
        return e.getStatus() != null && e.getStatus().getState() != null
                ? e.getStatus().getCodeString() + ": " + e.getStatus().getState() : e.getMessage();
    }

    /** Closes the instance after its shards: syncs the write-ahead log, then frees the native memory. */
    @Override
    public synchronized void close() {
        try {
            db.flushWal(true);
        } catch (RocksDBException e) {
            LOG.error("Syncing the write-ahead log of the RocksDB database {} at close failed: {}", dir, reason(e), e);
        }
        shardFamilies.values().forEach(ColumnFamilyHandle::close);
        shardFamilies.clear();
        for (ColumnFamilyHandle handle : List.of(keyIndex, tagIndex, timeIndex, metadata)) {
            handle.close();
        }
        db.close();
        syncWrite.close();
        dbOptions.close();
        familyOptions.close();
        bloom.close();
        writeBuffers.close();
        cache.close();
    }

    @Override
    public String toString() {
        return "RocksStore[" + dir + ", " + shardFamilies.size() + " shards]";
    }
}
