package io.sluice.exchange;

import io.sluice.testing.Eventually;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.parquet.ParquetSettings;
import io.sluice.parquet.StoreCounter;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.PluginRegistry;
import io.sluice.stream.raw.RawRecordDescriptor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExchangeQueryTest {

    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private final GatedPlugin plugin = new GatedPlugin();

    private ExchangeSettings settings(int cap) {
        return ExchangeSettings.defaults("q", "t/#", dir.toString()).withStreamType(GatedPlugin.ID)
                .withRing(RingSettings.defaults().withCap(cap).withFlushInterval(Duration.ofHours(1)))
                .withParquet(ParquetSettings.defaults(dir.toString()).withQueueBatches(4).withFileRollInterval(Duration.ofMillis(100)).withRetention(Duration.ZERO));
    }

    private Exchange open(ExchangeSettings settings) throws IOException {
        PluginRegistry plugins = PluginRegistry.withBuiltIns();
        plugins.register(plugin, "test");
        return Exchange.open(settings, plugins);
    }

    /** What a test does with its exchange. */
    private interface Body {
        void run(Exchange exchange) throws Exception;
    }

    /** Runs a test body, then lets the writer go and closes, even when the body failed. */
    private void withExchange(ExchangeSettings settings, Body body) throws Exception {
        Exchange exchange = open(settings);
        try {
            body.run(exchange);
        } finally {
            plugin.open();
            exchange.close();
        }
    }

    private static void awaitTaken(Exchange exchange, long messages) {
        Eventually.await(() -> exchange.counter(RingCounter.RECEIVED) == messages, () -> "the ring took "
                + exchange.counter(RingCounter.RECEIVED) + " of " + messages + " offers");
    }

    /** Message i arrives at T0 + i / 4, so four messages share each millisecond. */
    private static void offer(Exchange exchange, int from, int to) {
        for (int i = from; i < to; i++) {
            assertTrue(exchange.offer(Captured.topic(i), Captured.payload(i), T0 + i / 4));
        }
    }

    @Test
    void queryMergesFilesPendingBatchesAndTheRingInKeyOrder() throws Exception {
        withExchange(settings(10), exchange -> {
            plugin.allow(3);
            offer(exchange, 0, 30);
            Eventually.await(() -> exchange.counter(StoreCounter.RECORDS_WRITTEN) == 30, () -> "three batches in files");
            offer(exchange, 30, 65);
            Eventually.await(() -> exchange.status().pendingBatches() == 3 && exchange.status().activeRows() == 5,
                    () -> exchange.status().toString());
            Captured.assertMessages(Captured.query(exchange, 0, Long.MAX_VALUE), Captured.range(0, 65));
            Captured.assertMessages(Captured.query(exchange, T0 + 7, T0 + 12), Captured.range(28, 52));
            Captured.assertMessages(Captured.query(exchange, T0 + 16, T0 + 16), Captured.range(64, 65));
            assertEquals(List.of(), Captured.query(exchange, T0 + 17, Long.MAX_VALUE));
            assertEquals(List.of(), Captured.query(exchange, 0, T0 - 1));
        });
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, 65));
    }

    @Test
    void decodedRecordsCarryTheExactBytes() throws Exception {
        withExchange(settings(10), exchange -> {
            plugin.allow(1);
            offer(exchange, 0, 10);
            Eventually.await(() -> exchange.counter(StoreCounter.FILES_WRITTEN) == 1, () -> "one file");
            offer(exchange, 10, 25);
            awaitTaken(exchange, 25);
            byte[] bytes = decodeAll(exchange, "sync-" + T0 + "-" + (T0 + 5));
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            int at = 0;
            for (int i = 0; i < 24; i++) {
                assertEquals(T0 + i / 4, RawRecordDescriptor.ts(buffer, at), "ts of record " + i);
                byte[] data = new byte[RawRecordDescriptor.dataLength(buffer, at)];
                buffer.get(at + RawRecordDescriptor.DATA_OFFSET, data);
                assertArrayEquals(Captured.payload(i), data, "record " + i);
                at = RawRecordDescriptor.nextRecord(buffer, at);
            }
            assertEquals(bytes.length, at);
        });
    }

    private static byte[] decodeAll(Exchange exchange, String command) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AtomicReference<ByteBuffer> pending = new AtomicReference<>();
        try (ExchangeQuery query = exchange.query(command)) {
            while (query.decodeNext(length -> {
                if (pending.get() != null) {
                    out.writeBytes(pending.get().array());
                }
                pending.set(ByteBuffer.allocate(length));
                return pending.get();
            })) {
                // keep decoding
            }
        }
        if (pending.get() != null) {
            out.writeBytes(pending.get().array());
        }
        return out.toByteArray();
    }

    @Test
    void queriesWhileBatchesMoveToDiskSeeNoGapsAndNoDuplicates() throws Exception {
        plugin.open();
        ExchangeSettings settings = settings(100).withRing(RingSettings.defaults().withCap(100).withFlushInterval(Duration.ofMillis(2)))
                .withParquet(ParquetSettings.defaults(dir.toString()).withFileCount(100_000).withFileRollInterval(Duration.ofMillis(100)).withRetention(Duration.ZERO)
                        .withFileSize(ParquetSettings.MIN_FILE_SIZE));
        int chunks = 40;
        int perChunk = 500;
        int total = chunks * perChunk;
        withExchange(settings, exchange -> {
            AtomicInteger queriesDone = new AtomicInteger();
            Thread producer = new Thread(() -> {
                for (int chunk = 0; chunk < chunks; chunk++) {
                    for (int i = chunk * perChunk; i < (chunk + 1) * perChunk; i++) {
                        while (!exchange.offer(Captured.topic(i), Captured.payload(i), T0 + i / 4)) {
                            if (exchange.counter(RingCounter.REJECTED_CLOSED) > 0) {
                                return;
                            }
                            Thread.onSpinWait();
                        }
                    }
                    int chunkDone = chunk;
                    while (queriesDone.get() <= chunkDone && exchange.counter(RingCounter.REJECTED_CLOSED) == 0) {
                        LockSupport.parkNanos(100_000);
                    }
                }
            });
            producer.setDaemon(true);
            producer.start();
            long previous = 0;
            while (producer.isAlive()) {
                List<Captured.Row> rows = Captured.query(exchange, 0, Long.MAX_VALUE);
                for (int i = 0; i < rows.size(); i++) {
                    assertEquals(i, rows.get(i).offset(), "query " + queriesDone.get() + ": offsets run 0.. without gaps or duplicates");
                    assertArrayEquals(Captured.payload(i), rows.get(i).data());
                }
                assertTrue(rows.size() >= previous, "a later query never sees less");
                previous = rows.size();
                queriesDone.incrementAndGet();
            }
            producer.join();
            Eventually.await(() -> exchange.counter(RingCounter.RECEIVED) == total, () -> "the ring has not taken every offer");
            assertTrue(exchange.counter(StoreCounter.FILES_WRITTEN) > 10, "batches moved to disk during the test");
            Captured.assertMessages(Captured.query(exchange, 0, Long.MAX_VALUE), Captured.range(0, total));
        });
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, total));
    }

    @Test
    void aFileBeingReadOutlivesRetentionUntilTheQueryEnds() throws Exception {
        plugin.open();
        ExchangeSettings settings = settings(10).withParquet(ParquetSettings.defaults(dir.toString()).withFileCount(1).withFileRollInterval(Duration.ofMillis(100)).withRetention(Duration.ZERO));
        withExchange(settings, exchange -> {
            offer(exchange, 0, 10);
            Eventually.await(() -> exchange.counter(StoreCounter.FILES_WRITTEN) == 1, () -> "first file");
            Path first = Path.of(java.net.URI.create(firstFile(exchange)));
            ExchangeQuery query = exchange.query(0, Long.MAX_VALUE);
            offer(exchange, 10, 20);
            Eventually.await(() -> exchange.counter(StoreCounter.FILES_WRITTEN) == 2, () -> "second file");
            assertTrue(Files.exists(first), "retired but still read");
            int rows = 0;
            for (ColumnBatch chunk = query.nextChunk(); chunk != null; chunk = query.nextChunk()) {
                rows += chunk.rows();
            }
            assertEquals(10, rows, "the query reads what its view held");
            query.close();
            assertFalse(Files.exists(first), "deleted once the query ended");
        });
    }

    private String firstFile(Exchange exchange) throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".parquet")).findFirst().orElseThrow().toUri().toString();
        }
    }
}
