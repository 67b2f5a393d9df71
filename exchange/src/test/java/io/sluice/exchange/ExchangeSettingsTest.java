package io.sluice.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.parquet.Compression;
import io.sluice.ringbus.FullOp;
import io.sluice.ringbus.RingSettings;
import io.sluice.settings.InvalidSettingException;
import io.sluice.stream.PluginRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** Each invalid setting is refused with its key path first, so start-up can name the HOCON path. */
class ExchangeSettingsTest {

    @TempDir
    Path dir;

    private ExchangeSettings valid() {
        return ExchangeSettings.defaults("ok", "a/#", dir.toString());
    }

    private static void assertKey(String key, Executable action) {
        InvalidSettingException e = assertThrows(InvalidSettingException.class, action);
        assertEquals(key, e.key(), e.getMessage());
    }

    private static void open(ExchangeSettings settings) throws IOException {
        Exchange.open(settings, PluginRegistry.withBuiltIns()).close();
    }

    @Test
    void nameTopicAndStreamType() {
        assertKey("name", () -> ExchangeSettings.defaults("", "a", dir.toString()));
        assertKey("name", () -> ExchangeSettings.defaults("a/b", "a", dir.toString()));
        assertKey("name", () -> ExchangeSettings.defaults(".hidden", "a", dir.toString()));
        assertKey("topic", () -> ExchangeSettings.defaults("x", "", dir.toString()));
        assertKey("streamType", () -> valid().withStreamType(-1));
        assertKey("streamType", () -> open(valid().withStreamType(9)));
    }

    @Test
    void ringbusKeys() {
        assertKey("ringbus.cap", () -> valid().withRing(RingSettings.defaults().withCap(0)));
        assertKey("ringbus.cap", () -> valid().withRing(RingSettings.defaults().withCap(-5)));
        assertKey("ringbus.fullOp", () -> FullOp.of(7));
        assertKey("flush_interval", () -> RingSettings.defaults().withFlushInterval(Duration.ZERO));
        assertKey("max_batch_bytes", () -> RingSettings.defaults().withMaxBatchBytes(0));
    }

    @Test
    void parquetKeys() {
        assertKey("parquet.file_count", () -> valid().parquet().withFileCount(0));
        assertKey("parquet.file_size", () -> valid().parquet().withFileSize(10));
        assertKey("parquet.compress", () -> Compression.of("lzo"));
        assertKey("parquet.file_name_prefix", () -> valid().parquet().withFileNamePrefix("a b"));
    }

    @Test
    void directoryThatCannotBeCreated() throws IOException {
        Path file = dir.resolve("file");
        Files.writeString(file, "x");
        assertKey("parquet.dir", () -> open(valid().withParquet(valid().parquet().withDir(file.resolve("sub").toString()))));
    }

    @Test
    void spillDirectoryIsDerivedForLocalDirsAndRequiredForOthers() {
        assertEquals(dir.resolve(".spill").resolve("ok"), valid().spillDir());
        ExchangeSettings hdfs = valid().withDurability(Durability.NONE)
                .withParquet(valid().parquet().withDir("hdfs://namenode:8020/capture"));
        assertNull(hdfs.spillDir());
        assertKey("ringbus.spill_dir", () -> hdfs.withRing(RingSettings.defaults().withFullOp(FullOp.FILE)));
        Path spill = dir.resolve("spill");
        assertEquals(spill, hdfs.withRing(RingSettings.defaults().withSpillDir(spill).withFullOp(FullOp.FILE)).spillDir());
    }

    @Test
    void writeAheadLogDirectoryIsDerivedForLocalDirsAndRequiredForOthers() {
        assertEquals(dir.resolve(".wal").resolve("ok"), valid().walDirectory());
        assertNull(valid().withDurability(Durability.NONE).walDirectory());
        ExchangeSettings hdfs = valid().withDurability(Durability.NONE).withParquet(valid().parquet().withDir("hdfs://nn:8020/capture"));
        assertKey("storage.dir", () -> hdfs.withDurability(Durability.WAL));
        Path logs = dir.resolve("logs");
        assertEquals(logs.resolve("ok"), hdfs.withWalDir(logs).withDurability(Durability.WAL).walDirectory());
        ExchangeSettings fileWithLog = hdfs.withWalDir(logs).withDurability(Durability.WAL)
                .withRing(RingSettings.defaults().withFullOp(FullOp.FILE));
        assertEquals(FullOp.FILE, fileWithLog.ring().fullOp(), "fullOp FILE needs no spill directory: it keeps batches in the log");
    }

    @Test
    void durabilityAndTheWriteAheadLogsRetention() {
        assertEquals(Durability.WAL, Durability.fromConfig("wal"));
        assertKey("durability", () -> Durability.fromConfig("fsync"));
        assertKey("durability", () -> valid().withDurability(null));
        assertKey("storage.retention_ms", () -> valid().withWal(ExchangeSettings.WAL_DEFAULTS.toBuilder().retentionMs(60_000).build()));
        assertKey("storage.retention_bytes", () -> valid().withWal(ExchangeSettings.WAL_DEFAULTS.toBuilder().retentionBytes(1 << 30).build()));
        assertKey("storage.cleanup_policy", () -> valid().withWal(ExchangeSettings.WAL_DEFAULTS.toBuilder()
                .cleanupPolicy(io.sluice.storage.CleanupPolicy.COMPACT).build()));
    }

    @Test
    void aWriteAheadLogDirectoryThatCannotBeCreatedNamesItsKey() throws IOException {
        Path file = dir.resolve("file");
        Files.writeString(file, "x");
        assertKey("storage.dir", () -> open(valid().withWalDir(file.resolve("sub"))));
    }

    @Test
    void pluginSettingsAreCheckedByThePlugin() {
        assertKey("plugin.fields", () -> open(valid().withPlugin(Map.of("fields", "x"))));
    }
}
