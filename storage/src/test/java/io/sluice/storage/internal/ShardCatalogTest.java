package io.sluice.storage.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.storage.LogSettings;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageException;

class ShardCatalogTest {
    @TempDir
    Path dir;

    @Test
    void directoryNamesEscapeEverythingButSafeCharacters() {
        assertEquals("sensors%2Fa_0", ShardCatalog.directoryName("sensors/a_0"));
        assertEquals("%2E%2E", ShardCatalog.directoryName(".."));
        assertEquals("%25_1", ShardCatalog.directoryName("%_1"));
        assertEquals("%C3%BC_0", ShardCatalog.directoryName("ü_0"));
        assertThrows(IllegalArgumentException.class, () -> ShardCatalog.directoryName(""));
        assertThrows(IllegalArgumentException.class, () -> ShardCatalog.directoryName("/".repeat(100)));
    }

    @Test
    void interruptedCreationsAndDeletionsAreClearedAtLoad() throws Exception {
        ShardCatalog catalog = new ShardCatalog(dir);
        catalog.create("kept_0", ShardSettings.segment(LogSettings.defaults()));
        Files.createDirectories(dir.resolve("half-created_0"));
        Files.createDirectories(dir.resolve("gone_0" + ShardCatalog.DELETING_SUFFIX).resolve("inner"));
        List<ShardCatalog.Entry> entries = catalog.load();
        assertEquals(1, entries.size());
        assertEquals("kept_0", entries.get(0).name());
        assertFalse(Files.exists(dir.resolve("half-created_0")));
        assertFalse(Files.exists(dir.resolve("gone_0" + ShardCatalog.DELETING_SUFFIX)));
    }

    @Test
    void aDamagedSettingsFileNamesTheFileAndTheKey() throws Exception {
        ShardCatalog catalog = new ShardCatalog(dir);
        Path shardDir = catalog.create("x_0", ShardSettings.segment(LogSettings.defaults()));
        Path file = shardDir.resolve(ShardCatalog.SETTINGS_FILE);
        Files.writeString(file, Files.readString(file).replace("segment_bytes=1073741824", "segment_bytes=tiny"));
        StorageException e = assertThrows(StorageException.class, catalog::load);
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("segment_bytes"), e.getMessage());
    }
}
