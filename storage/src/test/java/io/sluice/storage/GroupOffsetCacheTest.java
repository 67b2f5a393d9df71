package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer-group offsets with {@code enable_cache = true}: acknowledged from the RocksDB cache,
 * written through to the durable log, and what survives when the cache is lost (a power cut loses
 * its unsynced tail). The kill -9 case is in {@link KillNineTest}.
 */
class GroupOffsetCacheTest {
    private static final StorageAdapterSettings CACHED = StorageAdapterSettings.defaults().withEnableCache(true);

    @TempDir
    Path dir;

    private StorageAdapter openWithShard(StorageAdapterSettings settings) {
        StorageAdapter adapter = StorageAdapter.open(dir, null, settings);
        if (!adapter.shardExists("s_0")) {
            adapter.createShard("s_0", ShardSettings.segment(LogSettings.defaults()));
            for (int i = 0; i < 100; i++) {
                adapter.write("s_0", Record.ofValue(new byte[] {1}, i));
            }
        }
        return adapter;
    }

    @Test
    void aCachedCommitIsReadBackAtOnceAndWrittenThroughToTheLog() throws Exception {
        try (StorageAdapter adapter = openWithShard(CACHED)) {
            for (int offset = 1; offset <= 50; offset++) {
                adapter.commitOffset("readers", "s_0", offset);
            }
            assertEquals(OptionalLong.of(50), adapter.groupOffset("readers", "s_0"));
        }
        Path cache = dir.resolve("group-offsets-cache");
        assertTrue(Files.isDirectory(cache));
        deleteTree(cache);
        try (StorageAdapter adapter = openWithShard(StorageAdapterSettings.defaults())) {
            assertEquals(OptionalLong.of(50), adapter.groupOffset("readers", "s_0"), "the durable log has the commit");
        }
    }

    @Test
    void turningTheCacheOffWritesItThroughAndRemovesIt() throws Exception {
        try (StorageAdapter adapter = openWithShard(StorageAdapterSettings.defaults())) {
            adapter.commitOffset("readers", "s_0", 10);
        }
        try (StorageAdapter adapter = openWithShard(CACHED)) {
            adapter.commitOffset("readers", "s_0", 20);
            adapter.commitOffset("readers", "s_0", 30);
            assertEquals(OptionalLong.of(30), adapter.groupOffset("readers", "s_0"));
        }
        try (StorageAdapter adapter = openWithShard(CACHED)) {
            assertEquals(OptionalLong.of(30), adapter.groupOffset("readers", "s_0"), "the cache survives a reopen");
        }
        try (StorageAdapter adapter = openWithShard(StorageAdapterSettings.defaults())) {
            assertEquals(OptionalLong.of(30), adapter.groupOffset("readers", "s_0"),
                    "opened without the cache, the adapter writes the cache through and removes it");
            adapter.commitOffset("readers", "s_0", 25);
            assertEquals(OptionalLong.of(25), adapter.groupOffset("readers", "s_0"), "a later commit wins, even if lower");
        }
        assertFalse(Files.exists(dir.resolve("group-offsets-cache")));
        try (StorageAdapter adapter = openWithShard(StorageAdapterSettings.defaults())) {
            assertEquals(OptionalLong.of(25), adapter.groupOffset("readers", "s_0"));
        }
    }

    @Test
    void aCacheNewerThanTheLogWinsAtOpenAndAnOlderOneDoesNot() throws Exception {
        try (StorageAdapter adapter = openWithShard(CACHED)) {
            adapter.commitOffset("readers", "s_0", 40);
        }
        Path cache = dir.resolve("group-offsets-cache");
        Path saved = dir.resolve("saved-cache");
        copyTree(cache, saved);
        try (StorageAdapter adapter = openWithShard(CACHED)) {
            adapter.commitOffset("readers", "s_0", 45);
        }
        deleteTree(cache);
        copyTree(saved, cache);
        try (StorageAdapter adapter = openWithShard(CACHED)) {
            assertEquals(OptionalLong.of(45), adapter.groupOffset("readers", "s_0"),
                    "an older cache (commit 40) does not undo the log's newer commit 45");
        }
    }

    private static void deleteTree(Path root) throws Exception {
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (var paths = Files.walk(from)) {
            for (Path p : paths.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
