package io.sluice.server;

import io.sluice.server.config.ConfigError;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.SluiceConfig;
import io.sluice.exchange.Durability;
import io.sluice.exchange.ExchangeSettings;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code exchange.durability} and the {@code storage} blocks of the exchanges' write-ahead logs. */
class WriteAheadLogConfigTest {
    @TempDir
    Path dir;

    private SluiceConfig load(String hocon) throws IOException {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, "parquet.dir = \"" + dir.resolve("parquet") + "\"\n" + hocon);
        return ConfigLoader.load(file);
    }

    private ConfigError error(String hocon) {
        return assertThrows(ConfigError.class, () -> load(hocon));
    }

    private static String exchange(String id, String name, String extra) {
        return "exchange_client." + id + " {\n  exchange_url = \"tcp://127.0.0.1:*\"\n  exchange {\n    name = \"" + name
                + "\"\n    topic = \"" + name + "/#\"\n" + extra + "\n  }\n}\n";
    }

    private ExchangeSettings only(SluiceConfig config) {
        return config.exchanges().get(0).exchange();
    }

    @Test
    void anExchangeIsDurableByDefaultWithItsLogBesideItsParquetFiles() throws IOException {
        ExchangeSettings settings = only(load(exchange("a", "telemetry", "")));
        assertEquals(Durability.WAL, settings.durability());
        assertEquals(dir.resolve("parquet").resolve(".wal").resolve("telemetry"), settings.walDirectory());
        assertEquals(ExchangeSettings.WAL_DEFAULTS, settings.wal());
        assertEquals(Durability.NONE, only(load(exchange("a", "telemetry", "durability = none"))).durability());
    }

    @Test
    void theTopLevelStorageBlockGivesDefaultsAndAnExchangeOverridesThemKeyByKey() throws IOException {
        SluiceConfig config = load("""
                storage {
                  dir = "%s"
                  segment_bytes = 16MB
                  segment_ms = 2h
                  index_interval_bytes = 8KB
                  flush = always
                  flush_interval_ms = 250
                  flush_messages = 1000
                  retention_ms = -1
                  retention_bytes = -1
                }
                """.formatted(dir.resolve("logs")) + exchange("a", "first", "")
                + exchange("b", "second", "storage { flush = none, flush_interval_ms = 2s, dir = \"" + dir.resolve("fast") + "\" }"));
        LogSettings first = config.exchanges().get(0).exchange().wal();
        assertEquals(16 << 20, first.segmentBytes());
        assertEquals(2 * 3_600_000L, first.segmentMs());
        assertEquals(8192, first.indexIntervalBytes());
        assertEquals(FlushPolicy.ALWAYS, first.flush());
        assertEquals(250, first.flushIntervalMs());
        assertEquals(1000, first.flushMessages());
        assertEquals(LogSettings.UNLIMITED, first.retentionMs());
        assertEquals(dir.resolve("logs").resolve("first"), config.exchanges().get(0).exchange().walDirectory());
        LogSettings second = config.exchanges().get(1).exchange().wal();
        assertEquals(FlushPolicy.NONE, second.flush());
        assertEquals(2000, second.flushIntervalMs());
        assertEquals(16 << 20, second.segmentBytes(), "keys the exchange does not set come from the top-level block");
        assertEquals(dir.resolve("fast").resolve("second"), config.exchanges().get(1).exchange().walDirectory());
    }

    @Test
    void badValuesStopStartUpNamingTheirKey() {
        assertEquals("exchange_client.a.exchange.durability", error(exchange("a", "x", "durability = fsync")).path());
        assertEquals("storage.flush", error("storage.flush = sometimes\n" + exchange("a", "x", "")).path());
        assertEquals("storage.flush_interval_ms", error("storage.flush_interval_ms = 0\n" + exchange("a", "x", "")).path());
        assertEquals("storage.segment_bytes", error("storage.segment_bytes = 10\n" + exchange("a", "x", "")).path());
        assertEquals("exchange_client.a.exchange.storage.segment_ms",
                error(exchange("a", "x", "storage.segment_ms = soon")).path());
        assertEquals("storage.segment_byte", error("storage.segment_byte = 1MB\n").path());
        ConfigError retention = error("storage.retention_ms = 7d\n" + exchange("a", "x", ""));
        assertEquals("storage.retention_ms", retention.path());
        assertTrue(retention.getMessage().contains("trimmed as soon as its records are in Parquet"), retention.getMessage());
        assertEquals("exchange_client.a.exchange.storage.retention_bytes",
                error(exchange("a", "x", "storage.retention_bytes = 1GB")).path());
        assertEquals("exchange_client.a.exchange.storage.dir",
                error(exchange("a", "x", "parquet.dir = \"hdfs://namenode:8020/capture\"")).path());
    }

    @Test
    void aParquetDirectoryOnHdfsTakesItsLogFromStorageDir() throws IOException {
        ExchangeSettings settings = only(load("storage.dir = \"" + dir.resolve("wal") + "\"\n"
                + exchange("a", "x", "parquet.dir = \"hdfs://namenode:8020/capture\"")));
        assertEquals(dir.resolve("wal").resolve("x"), settings.walDirectory());
    }
}
