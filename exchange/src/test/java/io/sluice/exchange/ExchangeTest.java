package io.sluice.exchange;

import io.sluice.parquet.DuckDb;
import io.sluice.parquet.ParquetSettings;
import io.sluice.testing.Eventually;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.parquet.StoreCounter;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.stream.PluginRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExchangeTest {

    @TempDir
    Path dir;

    private ExchangeSettings settings() {
        return ExchangeSettings.defaults("ex1", "sensors/#", dir.toString())
                .withRing(RingSettings.defaults().withCap(100).withFlushInterval(Duration.ofHours(1)))
                .withParquet(ParquetSettings.defaults(dir.toString()).withFileRollInterval(Duration.ofMillis(100))
                        .withRetention(Duration.ZERO)); // some tests capture at ts of 2023
    }

    private static Exchange open(ExchangeSettings settings) throws IOException {
        return Exchange.open(settings, PluginRegistry.withBuiltIns());
    }

    private long parquetFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".parquet")).count();
        }
    }

    @Test
    void everyOfferedMessageLandsInParquetWithKeysInOrder() throws Exception {
        try (Exchange exchange = open(settings())) {
            for (int i = 0; i < 1234; i++) {
                assertTrue(exchange.offer(Captured.topic(i), Captured.payload(i)));
            }
        }
        List<Captured.Row> rows = Captured.duckDb(dir);
        Captured.assertMessages(rows, Captured.range(0, 1234));
        assertEquals(0, rows.get(0).offset());
        assertEquals(1233, rows.get(rows.size() - 1).offset());
    }

    @Test
    void sameMillisecondMessagesShareTsAndKeepDistinctOffsets() throws Exception {
        try (Exchange exchange = open(settings())) {
            for (int i = 0; i < 500; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i), 1_700_000_000_000L);
            }
        }
        List<Captured.Row> rows = Captured.duckDb(dir);
        Captured.assertMessages(rows, Captured.range(0, 500));
        assertTrue(rows.stream().allMatch(r -> r.ts() == 1_700_000_000_000L));
    }

    @Test
    void offsetsAndClockContinueAfterRestartEvenWhenTheWallClockStepsBack() throws Exception {
        long t = 1_700_000_000_000L;
        try (Exchange exchange = open(settings())) {
            for (int i = 0; i < 150; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i), t + i);
            }
        }
        try (Exchange exchange = open(settings())) {
            for (int i = 150; i < 200; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i), t - 1000);
            }
        }
        List<Captured.Row> rows = Captured.duckDb(dir);
        Captured.assertMessages(rows, Captured.range(0, 200));
        assertEquals(Captured.range(0, 200), rows.stream().map(Captured.Row::offset).toList());
        assertEquals(t + 149, rows.get(199).ts(), "the clock kept the largest ts seen before the restart");
    }

    @Test
    void slowStreamReachesDiskAfterFlushInterval() throws Exception {
        ExchangeSettings settings = settings().withRing(RingSettings.defaults().withFlushInterval(Duration.ofMillis(50)));
        try (Exchange exchange = open(settings)) {
            for (int i = 0; i < 3; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i));
            }
            Eventually.await(() -> exchange.counter(StoreCounter.RECORDS_WRITTEN) == 3,
                    () -> exchange.counter(StoreCounter.RECORDS_WRITTEN) + " records written");
            Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, 3));
        }
    }

    @Test
    void gracefulCloseWritesEverythingBuffered() throws Exception {
        Exchange exchange = open(settings().withRing(RingSettings.defaults().withCap(100_000).withFlushInterval(Duration.ofHours(1))));
        for (int i = 0; i < 5000; i++) {
            exchange.offer(Captured.topic(i), Captured.payload(i));
        }
        assertEquals(0, exchange.counter(StoreCounter.RECORDS_WRITTEN), "nothing is due before close");
        exchange.close();
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, 5000));
        assertFalse(exchange.offer("t", new byte[1]));
        assertEquals(1, exchange.counter(RingCounter.REJECTED_CLOSED));
    }

    @Test
    void retentionKeepsTheNewestFiles() throws Exception {
        ExchangeSettings settings = settings().withRing(RingSettings.defaults().withCap(10).withFlushInterval(Duration.ofHours(1)))
                .withParquet(settings().parquet().withFileCount(3));
        try (Exchange exchange = open(settings)) {
            for (int i = 0; i < 100; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i));
                if (i % 10 == 9) {
                    long files = (i + 1) / 10;
                    Eventually.await(() -> exchange.counter(StoreCounter.FILES_WRITTEN) == files, () -> "file " + files);
                }
            }
            assertEquals(3, exchange.status().files());
            Captured.assertMessages(Captured.query(exchange, 0, Long.MAX_VALUE), Captured.range(70, 100));
        }
        assertEquals(3, parquetFiles());
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(70, 100));
    }

    @Test
    void crashLeftoverTempFileIsRemovedAtOpen() throws Exception {
        try (Exchange exchange = open(settings())) {
            for (int i = 0; i < 10; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i));
            }
        }
        Path leftover = dir.resolve(".sluice_ex1_1.parquet.tmp");
        Files.write(leftover, new byte[] {'P', 'A', 'R', '1', 0, 0});
        try (Exchange exchange = open(settings())) {
            assertFalse(Files.exists(leftover));
            assertEquals(1, exchange.counter(StoreCounter.TEMP_FILES_REMOVED));
            for (int i = 10; i < 20; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i));
            }
        }
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, 20));
    }

    @Test
    void statusListsStateAndEveryCounterByMetricName() throws Exception {
        try (Exchange exchange = open(settings())) {
            for (int i = 0; i < 150; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i));
            }
            Eventually.await(() -> exchange.status().files() == 1 && exchange.status().activeRows() == 50,
                    () -> exchange.status().toString());
            ExchangeStatus status = exchange.status();
            assertEquals("ex1", status.name());
            assertEquals("sensors/#", status.topic());
            assertEquals("raw", status.plugin());
            assertEquals(150L, status.counters().get("ring_received_total"));
            assertEquals(100L, status.counters().get("parquet_records_written_total"));
            assertEquals(0L, status.counters().get("exchange_records_lost_total"));
        }
    }

    @Test
    void pluginFailureIsCountedAndTheExchangeKeepsCapturing() throws Exception {
        GatedPlugin plugin = new GatedPlugin();
        plugin.failEncoding = true;
        plugin.open();
        PluginRegistry plugins = PluginRegistry.withBuiltIns();
        plugins.register(plugin, "test");
        try (Exchange exchange = Exchange.open(settings().withStreamType(GatedPlugin.ID), plugins)) {
            for (int i = 0; i < 100; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i));
            }
            Eventually.await(() -> exchange.counter(ExchangeCounter.RECORDS_LOST) == 100, () -> "loss not counted");
            plugin.failEncoding = false;
            for (int i = 100; i < 200; i++) {
                exchange.offer(Captured.topic(i), Captured.payload(i));
            }
        }
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(100, 200));
    }

    @Test
    void exchangesWithTheSameNameAreRefused() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Exchanges.open(List.of(settings(), settings()), PluginRegistry.withBuiltIns()));
        assertTrue(e.getMessage().startsWith("name: duplicate exchange name 'ex1'"), e.getMessage());
    }

    @Test
    void exchangesOpenTogetherAndReportTogether() throws Exception {
        ExchangeSettings second = ExchangeSettings.defaults("ex2", "other/#", dir.toString());
        try (Exchanges exchanges = Exchanges.open(List.of(settings(), second), PluginRegistry.withBuiltIns())) {
            exchanges.get("ex2").offer("other/1", new byte[] {1});
            assertEquals(List.of("ex1", "ex2"), exchanges.statuses().stream().map(ExchangeStatus::name).toList());
        }
        List<Object[]> perFile = DuckDb.query("SELECT count(*) FROM read_parquet('" + dir + "/sluice_ex2-*.parquet')");
        assertEquals(1L, ((Number) perFile.get(0)[0]).longValue());
    }
}
