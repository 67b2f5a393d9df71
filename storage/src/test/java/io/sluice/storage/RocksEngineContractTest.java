package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.TableProperties;

/** The adapter contract on the RocksDB engine, and what a damaged or missing database does to start-up. */
class RocksEngineContractTest extends StorageAdapterContract {
    @Override
    Engine engine() {
        return Engine.ROCKSDB;
    }

    private Path database() {
        return dir.resolve("rocksdb");
    }

    @Test
    void aMissingDatabaseStopsTheOpenWithItsPathAndRocksDbsReason() throws IOException {
        adapter.write("sensors_0", record(null, "v", 1));
        adapter.close();
        adapter = null;
        try (Stream<Path> paths = Files.walk(database())) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        StorageException e = assertThrows(StorageException.class, () -> StorageAdapter.open(dir, scheduler, adapterSettings()));
        assertTrue(e.getMessage().contains(database().toString()) && e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void aCorruptDatabaseStopsTheOpenWithItsPathAndRocksDbsReason() throws IOException {
        adapter.write("sensors_0", record(null, "v", 1));
        adapter.close();
        adapter = null;
        try (Stream<Path> files = Files.list(database())) {
            for (Path manifest : files.filter(p -> p.getFileName().toString().startsWith("MANIFEST-")).toList()) {
                Files.write(manifest, new byte[4096]);
            }
        }
        StorageException e = assertThrows(StorageException.class, () -> StorageAdapter.open(dir, scheduler, adapterSettings()));
        assertTrue(e.getMessage().contains(database().toString()) && e.getMessage().contains("Corruption"), e.getMessage());
    }

    @Test
    void tableFilesWithWholeIndexBlocksFromBeforePartitionedIndexesStillRead() throws RocksDBException {
        for (int i = 0; i < 300; i++) {
            adapter.write("sensors_0", record("k" + i % 10, "v" + i, i, "t" + i % 3));
        }
        adapter.close();
        adapter = null;
        assertEquals(0, rewriteTablesWithWholeIndexBlocks(), "index partitions in the rewritten table files");
        adapter = StorageAdapter.open(dir, scheduler, adapterSettings());
        assertEquals(LongStream.iterate(3, o -> o < 300, o -> o + 10).boxed().toList(),
                adapter.readByKey("sensors_0", bytes("k3"), 0, 100).stream().map(StoredRecord::offset).toList());
        assertEquals(LongStream.iterate(1, o -> o < 300, o -> o + 3).boxed().toList(),
                adapter.readByTag("sensors_0", "t1", 0, 200).stream().map(StoredRecord::offset).toList());
        assertEquals("v299", new String(adapter.readByOffset("sensors_0", 299, 1, 1 << 20).get(0).record().value(),
                java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * Flushes and compacts every column family into table files with one index block and one
     * filter block each, as the engine wrote them before partitioning both; returns the index
     * partitions found in the result (0 when every file has a whole index block).
     */
    private long rewriteTablesWithWholeIndexBlocks() throws RocksDBException {
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (BloomFilter bloom = new BloomFilter(10, false);
             ColumnFamilyOptions family = new ColumnFamilyOptions().setTableFormatConfig(
                     new BlockBasedTableConfig().setFilterPolicy(bloom).setCacheIndexAndFilterBlocks(true));
             Options listing = new Options();
             DBOptions options = new DBOptions()) {
            for (byte[] name : RocksDB.listColumnFamilies(listing, database().toString())) {
                descriptors.add(new ColumnFamilyDescriptor(name, family));
            }
            long partitions = 0;
            int files = 0;
            try (RocksDB db = RocksDB.open(options, database().toString(), descriptors, handles)) {
                for (ColumnFamilyHandle handle : handles) {
                    db.compactRange(handle);
                    for (TableProperties table : db.getPropertiesOfAllTables(handle).values()) {
                        partitions += table.getIndexPartitions();
                        files++;
                    }
                }
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
            assertTrue(files >= 3, "the records, key and tag indexes are in table files, not only in the log: " + files);
            return partitions;
        }
    }

    @Test
    void theShardsOfOneAdapterShareOneDatabaseAndADeletedShardLeavesNothingBehind() {
        adapter.createShard("other_0", settings());
        adapter.write("sensors_0", record("k", "a", 1, "t"));
        adapter.write("other_0", record("k", "b", 2, "t"));
        assertEquals(1, adapter.readByKey("other_0", bytes("k"), 0, 10).size(), "indexes are per shard");
        adapter.deleteShard("other_0");
        adapter.createShard("other_0", settings());
        assertEquals(0, adapter.endOffset("other_0"));
        assertEquals(0, adapter.readByTag("other_0", "t", 0, 10).size());
        assertEquals(1, adapter.readByTag("sensors_0", "t", 0, 10).size());
        reopen();
        assertEquals(1, adapter.readByKey("sensors_0", bytes("k"), 0, 10).size());
    }
}
