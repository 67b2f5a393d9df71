package io.sluice.storage.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.Engine;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.OffsetOutOfRangeException;
import io.sluice.storage.Record;
import io.sluice.storage.RecordFlyweight;
import io.sluice.storage.Shard;
import io.sluice.storage.ShardExistsException;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageAdapter;
import io.sluice.storage.StorageAdapterSettings;
import io.sluice.storage.StorageException;
import io.sluice.storage.StoredRecord;
import io.sluice.storage.UnknownShardException;
import io.sluice.storage.memory.MemoryShard;
import io.sluice.storage.rocksdb.RocksStore;
import io.sluice.storage.segment.SegmentShard;

/**
 * The storage adapter on a local directory:
 * <pre>
 *  &lt;dir&gt;/shards/&lt;shard dir&gt;/shard.properties   each shard ({@link ShardCatalog}), plus its log files
 *  &lt;dir&gt;/rocksdb/                            the RocksDB instance of every rocksdb shard ({@link RocksStore})
 *  &lt;dir&gt;/group-offsets/                      the consumer-group offsets log ({@link GroupOffsets})
 * </pre>
 * The RocksDB instance opens with the first rocksdb shard: at open when the catalog holds one
 * (then a missing database is an error), else when one is created.
 * Shard creation and deletion are serialised; everything else runs concurrently and goes
 * straight to the shard.
 */
public final class LocalStorageAdapter implements StorageAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(LocalStorageAdapter.class);

    private final Path dir;
    private final LogScheduler scheduler;
    private final boolean ownsScheduler;
    private final StorageAdapterSettings settings;
    private RocksStore rocks;
    private final ShardCatalog catalog;
    private final GroupOffsets groupOffsets;
    private final ConcurrentHashMap<String, Shard> shards = new ConcurrentHashMap<>();
    private final Object catalogLock = new Object();

    private LocalStorageAdapter(Path dir, LogScheduler scheduler, boolean ownsScheduler, StorageAdapterSettings settings)
            throws IOException {
        this.dir = dir;
        this.scheduler = scheduler;
        this.ownsScheduler = ownsScheduler;
        this.settings = settings;
        Files.createDirectories(dir);
        this.catalog = new ShardCatalog(dir.resolve("shards"));
        this.groupOffsets = new GroupOffsets(dir, scheduler, settings.enableCache());
        try {
            List<ShardCatalog.Entry> entries = catalog.load();
            Set<String> onRocks = entries.stream().filter(e -> e.settings().engine() == Engine.ROCKSDB)
                    .map(ShardCatalog.Entry::name).collect(Collectors.toSet());
            if (!onRocks.isEmpty()) {
                rocks = RocksStore.open(dir.resolve(RocksStore.DIRECTORY), settings, onRocks, true);
            }
            for (ShardCatalog.Entry entry : entries) {
                shards.put(entry.name(), openShard(entry.name(), entry.settings(), entry.directory()));
            }
        } catch (RuntimeException | IOException e) {
            closeAll();
            throw e;
        }
        LOG.info("Storage adapter opened on {} with {} shards", dir, shards.size());
    }

    /** Opens the adapter; a null scheduler means one of its own. */
    public static LocalStorageAdapter open(Path dir, LogScheduler scheduler, StorageAdapterSettings settings) {
        LogScheduler threads = scheduler != null ? scheduler : new LogScheduler("adapter");
        try {
            return new LocalStorageAdapter(dir, threads, scheduler == null, settings);
        } catch (IOException | RuntimeException e) {
            if (scheduler == null) {
                threads.close();
            }
            if (e instanceof StorageException se) {
                throw se;
            }
            throw new StorageException("opening the storage adapter on " + dir + " failed: " + e.getMessage(), e);
        }
    }

    private Shard openShard(String name, ShardSettings settings, Path shardDir) {
        return switch (settings.engine()) {
            case MEMORY -> new MemoryShard(name, settings, shardDir, scheduler);
            case SEGMENT -> SegmentShard.open(name, settings, shardDir, scheduler);
            case ROCKSDB -> rocks().openShard(name, settings, scheduler);
        };
    }

    /** The RocksDB instance, opened (or created) with the first rocksdb shard. */
    private RocksStore rocks() {
        if (rocks == null) {
            rocks = RocksStore.open(dir.resolve(RocksStore.DIRECTORY), settings, Set.of(), false);
        }
        return rocks;
    }

    private Shard shard(String name) {
        Shard shard = shards.get(name);
        if (shard == null) {
            throw new UnknownShardException(name);
        }
        return shard;
    }

    @Override
    public void createShard(String name, ShardSettings settings) {
        synchronized (catalogLock) {
            if (shards.containsKey(name)) {
                throw new ShardExistsException(name);
            }
            if (settings.engine() == Engine.ROCKSDB) {
                rocks().createShard(name);
            }
            try {
                Path shardDir = catalog.create(name, settings);
                shards.put(name, openShard(name, settings, shardDir));
            } catch (IOException e) {
                throw new StorageException("creating shard '" + name + "' in " + catalog.directory(name) + " failed: "
                        + e.getMessage(), e);
            }
        }
    }

    @Override
    public void deleteShard(String name) {
        synchronized (catalogLock) {
            Shard shard = shards.remove(name);
            if (shard == null) {
                throw new UnknownShardException(name);
            }
            shard.close();
            try {
                catalog.delete(name);
            } catch (IOException e) {
                throw new StorageException("deleting shard '" + name + "' in " + catalog.directory(name) + " failed: "
                        + e.getMessage(), e);
            }
            if (shard.settings().engine() == Engine.ROCKSDB) {
                rocks.dropShard(name);
            }
            groupOffsets.removeShard(name);
        }
    }

    @Override
    public boolean shardExists(String name) {
        return shards.containsKey(name);
    }

    @Override
    public Set<String> shards() {
        return new TreeSet<>(shards.keySet());
    }

    @Override
    public ShardSettings shardSettings(String name) {
        return shard(name).settings();
    }

    /** The shard object itself, for callers inside the storage layer (metrics, tests). */
    public Shard shardFor(String name) {
        return shard(name);
    }

    @Override
    public long write(String name, Record record) {
        return shard(name).write(record);
    }

    @Override
    public long[] batchWrite(String name, List<Record> records) {
        return shard(name).batchWrite(records);
    }

    @Override
    public List<StoredRecord> readByOffset(String name, long offset, int maxRecords, int maxBytes) {
        return shard(name).readByOffset(offset, maxRecords, maxBytes);
    }

    @Override
    public int readByOffset(String name, long offset, int maxRecords, int maxBytes, Consumer<RecordFlyweight> visitor) {
        return shard(name).readByOffset(offset, maxRecords, maxBytes, visitor);
    }

    @Override
    public List<StoredRecord> readByKey(String name, byte[] key, long fromOffset, int maxRecords) {
        return shard(name).readByKey(key, fromOffset, maxRecords);
    }

    @Override
    public List<StoredRecord> readByTag(String name, String tag, long fromOffset, int maxRecords) {
        return shard(name).readByTag(tag, fromOffset, maxRecords);
    }

    @Override
    public long offsetForTimestamp(String name, long timestamp) {
        return shard(name).offsetForTimestamp(timestamp);
    }

    @Override
    public long startOffset(String name) {
        return shard(name).startOffset();
    }

    @Override
    public long endOffset(String name) {
        return shard(name).endOffset();
    }

    @Override
    public void deleteRecordsBefore(String name, long offset) {
        shard(name).deleteRecordsBefore(offset);
    }

    @Override
    public void commitOffset(String group, String name, long offset) {
        long end = shard(name).endOffset();
        if (offset < 0 || offset > end) {
            throw new OffsetOutOfRangeException(name, offset, 0, end);
        }
        groupOffsets.commit(group, name, offset);
    }

    @Override
    public OptionalLong groupOffset(String group, String name) {
        shard(name);
        return groupOffsets.get(group, name);
    }

    @Override
    public Set<String> groups() {
        return groupOffsets.groups();
    }

    @Override
    public void close() {
        synchronized (catalogLock) {
            closeAll();
        }
    }

    private void closeAll() {
        for (Shard shard : shards.values()) {
            try {
                shard.close();
            } catch (RuntimeException e) {
                LOG.error("Closing shard '{}' in {} failed", shard.name(), dir, e);
            }
        }
        shards.clear();
        if (rocks != null) {
            rocks.close();
            rocks = null;
        }
        groupOffsets.close();
        if (ownsScheduler) {
            scheduler.close();
        }
    }

    @Override
    public String toString() {
        return "LocalStorageAdapter[" + dir + ", " + shards.size() + " shards]";
    }
}
