package io.sluice.exchange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.parquet.ParquetSettings;
import io.sluice.parquet.StoreCounter;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.stream.PluginRegistry;
import io.sluice.testing.Eventually;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code file_size} bounds what the open file keeps outside Parquet (in memory with
 * {@code durability = none}, in the write-ahead log with {@code wal}), not only its Parquet
 * bytes: rows that compress to almost nothing still publish a file once they reach it as
 * captured, so neither memory nor the log grows with the compression ratio. Queries see every
 * row throughout, and DuckDB reads them all.
 */
class FileSizeTest {

    private static final int BATCHES = 10;
    private static final int ROWS_PER_BATCH = 1000;
    private static final int ROWS = BATCHES * ROWS_PER_BATCH;
    /** About 2.1 MB as captured, and far less Parquet: the payloads are mostly zeros. */
    private static final int PAYLOAD_BYTES = 200;
    private static final long FILE_SIZE = 256 * 1024;

    @TempDir
    Path dir;

    /** Message i's payload: i, then zeros. */
    private static byte[] payload(int i) {
        return ByteBuffer.allocate(PAYLOAD_BYTES).putInt(i).array();
    }

    private ExchangeSettings settings(Durability durability) {
        RingSettings ring = RingSettings.defaults().withCap(ROWS_PER_BATCH).withFlushInterval(Duration.ofHours(1));
        ParquetSettings parquet = ParquetSettings.defaults(dir.toString()).withFileSize(FILE_SIZE)
                .withFileRollInterval(Duration.ofHours(1)).withRetention(Duration.ZERO);
        return ExchangeSettings.defaults("sized", "s/#", dir.toString()).withRing(ring).withParquet(parquet).withDurability(durability);
    }

    @ParameterizedTest
    @EnumSource(Durability.class)
    void rowsAsCapturedPublishAFileOnceTheyReachFileSize(Durability durability) throws Exception {
        try (Exchange exchange = Exchange.open(settings(durability), PluginRegistry.withBuiltIns())) {
            for (int batch = 0; batch < BATCHES; batch++) {
                for (int i = batch * ROWS_PER_BATCH; i < (batch + 1) * ROWS_PER_BATCH; i++) {
                    assertTrue(exchange.offer("s/x", payload(i)), "offer " + i);
                }
                long taken = (batch + 1L) * ROWS_PER_BATCH;
                Eventually.await(() -> exchange.counter(RingCounter.RECEIVED) == taken, () -> "batch taken by the ring");
            }
            // a batch is about 219 KB as captured: every second one reaches 256 KiB and publishes the file
            Eventually.await(() -> exchange.counter(StoreCounter.FILES_WRITTEN) == BATCHES / 2,
                    () -> exchange.counter(StoreCounter.FILES_WRITTEN) + " files published, " + exchange.counter(StoreCounter.RECORDS_APPENDED)
                            + " rows appended");
            assertTrue(exchange.counter(StoreCounter.BYTES_WRITTEN) < FILE_SIZE, "Parquet is far smaller than the rows as captured");
            List<Captured.Row> rows = Captured.query(exchange, 0, Long.MAX_VALUE);
            assertEquals(ROWS, rows.size());
            for (int i = 0; i < ROWS; i++) {
                assertArrayEquals(payload(i), rows.get(i).data(), "row " + i);
            }
        }
        assertEquals(ROWS, Captured.duckDb(dir).size());
    }
}
