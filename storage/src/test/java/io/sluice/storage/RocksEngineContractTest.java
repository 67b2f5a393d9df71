package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

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
