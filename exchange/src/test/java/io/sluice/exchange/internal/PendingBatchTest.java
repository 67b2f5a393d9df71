package io.sluice.exchange.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.exchange.ExchangeCounter;
import io.sluice.ringbus.Batch;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.Log;
import io.sluice.storage.LogSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a batch of the ring keeps its rows until its file is published: with a write-ahead log,
 * in memory only until the writer has put them in the open file and the log holds them durably,
 * then in the log alone; without one, in memory. Either way they count towards {@code file_size}.
 */
class PendingBatchTest {

    private static final int ROWS = 3;

    @TempDir
    Path dir;

    private ExchangeLog wal;

    @AfterEach
    void closeLog() {
        if (wal != null) {
            wal.close();
        }
    }

    private ExchangeLog openLog() {
        Log log = Log.open(dir, "wal-ex", LogSettings.builder().flush(FlushPolicy.NONE).build());
        wal = ExchangeLog.over("ex", log, new AtomicLongArray(ExchangeCounter.values().length));
        return wal;
    }

    /** A sealed batch of ROWS rows, appended to {@code log} first when there is one. */
    private static Batch sealedBatch(ExchangeLog log) {
        Batch batch = new Batch(ROWS, ROWS, Long.MAX_VALUE);
        for (int i = 0; i < ROWS; i++) {
            byte[] payload = {(byte) i, 42};
            long offset = log == null ? i : log.append(1000 + i, "t/" + i, payload);
            batch.append(1000 + i, offset, "t/" + i, payload, 1);
        }
        batch.seal();
        return batch;
    }

    private static void assertRows(Batch expected, Batch.Contents actual) {
        Batch.Contents rows = expected.contents();
        assertEquals(ROWS, actual.size());
        for (int i = 0; i < ROWS; i++) {
            assertEquals(rows.ts()[i], actual.ts()[i]);
            assertEquals(rows.offsets()[i], actual.offsets()[i]);
            assertEquals(rows.topics()[i], actual.topics()[i]);
            assertArrayEquals(rows.payloads()[i], actual.payloads()[i]);
        }
    }

    @Test
    void aLoggedBatchLeavesMemoryOnceWrittenAndDurableAndIsReadFromTheLog() throws IOException {
        ExchangeLog log = openLog();
        Batch batch = sealedBatch(log);
        PendingBatch pending = PendingBatch.ofRing(batch, null, log, null);
        assertTrue(pending.inMemory(), "it counts against the writer's queue like any batch of the ring");
        assertEquals(batch.bytes(), pending.heldBytes(), "the log keeps its rows until the file is published");

        pending.written();
        assertSame(batch.contents().payloads(), pending.contents().payloads(), "not durable in the log yet: still in memory");

        log.commit();
        pending.releaseMemory(log.highWatermark());
        Batch.Contents read = pending.contents();
        assertNotSame(batch.contents().payloads(), read.payloads(), "read back from the log");
        assertRows(batch, read);
    }

    @Test
    void aLoggedBatchStaysInMemoryWhileTheWriterNeedsIt() throws IOException {
        ExchangeLog log = openLog();
        Batch batch = sealedBatch(log);
        log.commit();
        PendingBatch pending = PendingBatch.ofRing(batch, null, log, null);

        pending.releaseMemory(log.highWatermark());
        assertSame(batch.contents().payloads(), pending.contents().payloads(), "durable, but the writer has not taken it");

        pending.written();
        assertNotSame(batch.contents().payloads(), pending.contents().payloads());
        assertRows(batch, pending.contents());
    }

    @Test
    void withoutALogTheBatchStaysInMemoryUntilPublished() throws IOException {
        Batch batch = sealedBatch(null);
        PendingBatch pending = PendingBatch.ofRing(batch, null, null, null);

        pending.written();
        assertSame(batch.contents().payloads(), pending.contents().payloads());
        assertEquals(batch.bytes(), pending.heldBytes());
        assertEquals(ROWS, pending.rows());
        assertEquals(0, pending.firstOffset());
        assertEquals(1000 + ROWS - 1, pending.maxTs());
    }
}
