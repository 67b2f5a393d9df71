package io.sluice.parquet;

import io.sluice.stream.CaptureBatch;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.PluginSettings;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.raw.RawPlugin;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** RAW batches with predictable content: row for offset o has ts = base + o / perMs, topic t/(o%3), payload "p-o". */
final class TestBatches {

    static final StreamCodec RAW = new RawPlugin().open(PluginSettings.none("test"));
    /**
     * The first row's ts: the time the class loaded, so that files roll by their rows' age (see
     * {@code file_roll_interval}) only where a test asks for it with {@link #old}.
     */
    static final long BASE_TS = System.currentTimeMillis();
    /** How far {@link #old} batches are shifted back: older than any interval the tests set. */
    static final long OLD_SHIFT_MS = 86_400_000L;

    private TestBatches() {
    }

    static long tsOf(long offset) {
        return BASE_TS + offset / 10;
    }

    static byte[] payloadOf(long offset) {
        return ("p-" + offset).getBytes(StandardCharsets.UTF_8);
    }

    static String topicOf(long offset) {
        return "t/" + (offset % 3);
    }

    static CaptureBatch capture(long firstOffset, int rows, int payloadBytes) {
        return capture(firstOffset, rows, payloadBytes, 0);
    }

    private static CaptureBatch capture(long firstOffset, int rows, int payloadBytes, long shiftMs) {
        long[] ts = new long[rows];
        long[] offsets = new long[rows];
        String[] topics = new String[rows];
        byte[][] payloads = new byte[rows][];
        for (int i = 0; i < rows; i++) {
            long offset = firstOffset + i;
            offsets[i] = offset;
            ts[i] = tsOf(offset) - shiftMs;
            topics[i] = topicOf(offset);
            payloads[i] = payloadBytes < 0 ? payloadOf(offset) : randomBytes(offset, payloadBytes);
        }
        return new CaptureBatch(ts, offsets, topics, payloads, 0, rows);
    }

    /** Bytes that do not compress, the same for the same offset. */
    private static byte[] randomBytes(long offset, int size) {
        byte[] bytes = new byte[size];
        new java.util.Random(offset).nextBytes(bytes);
        return bytes;
    }

    /** A store batch of RAW rows for offsets [firstOffset, firstOffset + rows). */
    static Fixed raw(long firstOffset, int rows) {
        return new Fixed(RAW.encode(capture(firstOffset, rows, -1)));
    }

    /** {@link #raw(long, int)} with every ts a day earlier. */
    static Fixed old(long firstOffset, int rows) {
        return new Fixed(RAW.encode(capture(firstOffset, rows, -1, OLD_SHIFT_MS)));
    }

    /** A store batch with payloads of a fixed size. */
    static Fixed raw(long firstOffset, int rows, int payloadBytes) {
        return new Fixed(RAW.encode(capture(firstOffset, rows, payloadBytes)));
    }

    /** An in-memory batch with fixed columns. */
    static class Fixed implements StoreBatch {
        final ColumnBatch columns;

        Fixed(ColumnBatch columns) {
            this.columns = columns;
        }

        @Override
        public ColumnBatch encode() {
            return columns;
        }

        @Override
        public boolean inMemory() {
            return true;
        }
    }

    /** A batch whose encode waits for a latch, so a test can let batches queue up behind it. */
    static final class Gate extends Fixed {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        Gate(ColumnBatch columns) {
            super(columns);
        }

        @Override
        public ColumnBatch encode() {
            entered.countDown();
            try {
                open.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return columns;
        }
    }

    /** Records what the writer published and deletes retired files at once. */
    static final class Recorder implements StoreListener {
        ParquetStore store;
        final List<StoredFile> published = new ArrayList<>();
        final List<List<StoreBatch>> batchesPerFile = new ArrayList<>();
        final List<StoreBatch> discarded = new ArrayList<>();
        final List<StoreBatch> unwritten = new ArrayList<>();
        final List<StoredFile> expired = new ArrayList<>();

        @Override
        public synchronized void published(StoredFile file, List<StoreBatch> batches, List<StoredFile> retired) {
            published.add(file);
            batchesPerFile.add(List.copyOf(batches));
            delete(retired);
        }

        @Override
        public synchronized void expired(List<StoredFile> retired) {
            expired.addAll(retired);
            delete(retired);
        }

        private void delete(List<StoredFile> retired) {
            for (StoredFile old : retired) {
                try {
                    store.delete(old);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }

        @Override
        public synchronized void discarded(StoreBatch batch, RuntimeException cause) {
            discarded.add(batch);
        }

        @Override
        public synchronized void unwritten(List<StoreBatch> batches, Exception cause) {
            unwritten.addAll(batches);
        }

        synchronized int publishedCount() {
            return published.size();
        }

        synchronized List<StoredFile> published() {
            return List.copyOf(published);
        }
    }
}
