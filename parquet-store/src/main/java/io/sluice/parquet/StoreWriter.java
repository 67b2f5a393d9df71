package io.sluice.parquet;

import io.sluice.parquet.internal.BatchFileWriter;
import io.sluice.parquet.internal.FileOutput;
import io.sluice.parquet.internal.PageBufferPool;
import io.sluice.parquet.internal.RowGroupJournal;
import io.sluice.parquet.internal.ZstdPageCompressor;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnType;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.LongVector;
import io.sluice.stream.Schema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.CodecFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer thread's loop, {@code sluice-exchange-<name>-writer}: take every queued batch,
 * encode each (the plugin runs here, off the capture path), and append each as a row group to the
 * open file.
 *
 * <p>Batch to file: a file stays open and gains row groups until it reaches {@code file_size} (on
 * disk, or in the batches it holds in memory), or its first row was written
 * {@code file_roll_interval} ago, or the store closes; then it is published: its footer written,
 * made durable, renamed to its final name, handed to the catalog and the listener. A batch whose
 * columns the open file cannot take (a new column, another type) publishes the open file first. A
 * new file's schema is the union of the batches taken together (a column some batch lacks is
 * nullable). Retention by age runs at least once a second.
 *
 * <p>A failed write abandons the open file (deleting it and its journal) and writes its batches
 * and the rest again, with back-off (100 ms doubling to 10 s) for as long as the store is open, so
 * a directory that is briefly unavailable costs nothing; meanwhile the queue fills and the ring's
 * fullOp decides. Once the store is closing, the batches get {@value #CLOSING_ATTEMPTS} more
 * attempts and are then handed to {@link StoreListener#unwritten}.
 */
final class StoreWriter implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(StoreWriter.class);
    private static final long FIRST_BACKOFF_MS = 100;
    private static final long MAX_BACKOFF_MS = 10_000;
    private static final long RETENTION_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final int CLOSING_ATTEMPTS = 3;

    private final ParquetStore store;
    private final WriteQueue queue;
    private final StoreListener listener;
    private final PageBufferPool buffers = new PageBufferPool();
    private final long rollNanos;
    private CodecFactory codecs;
    private BytesInputCompressor compressor;
    private OpenFile open;
    /** Batches of the current {@link #append} that are in a file (open or published). */
    private int appended;
    private long nextRetentionCheck = System.nanoTime();

    private record Encoded(StoreBatch source, ColumnBatch columns) {
    }

    StoreWriter(ParquetStore store, WriteQueue queue, StoreListener listener) {
        this.store = store;
        this.queue = queue;
        this.listener = listener;
        this.rollNanos = store.settings().fileRollInterval().toNanos();
    }

    @Override
    public void run() {
        try {
            while (true) {
                List<StoreBatch> work = queue.takeAll(waitNanos());
                boolean closing = queue.isClosing();
                if (!work.isEmpty()) {
                    write(work, false);
                }
                if (open != null && (closing || rollDue())) {
                    write(List.of(), true);
                }
                expire();
                if (closing && work.isEmpty() && open == null) {
                    return;
                }
            }
        } catch (Throwable e) {
            try {
                abandon(List.of(), e); // the next writer writes the open file's batches again
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            store.writerDied(e); // counts, queues its batches again, starts the next writer or says why not
        } finally {
            if (codecs != null) {
                codecs.release(); // and the compressor it made
            } else if (compressor != null) {
                compressor.release();
            }
        }
    }

    /** Until the open file is due, or the next retention check, whichever comes first. */
    private long waitNanos() {
        long now = System.nanoTime();
        long wait = Math.max(0, nextRetentionCheck - now);
        if (store.settings().retention().isZero()) {
            wait = Long.MAX_VALUE;
        }
        if (open != null) {
            wait = Math.min(wait, Math.max(0, open.rollDeadline(rollNanos, now, System.currentTimeMillis()) - now));
        }
        return wait;
    }

    private boolean rollDue() {
        long now = System.nanoTime();
        return now - open.rollDeadline(rollNanos, now, System.currentTimeMillis()) >= 0;
    }

    private void expire() {
        long now = System.nanoTime();
        if (store.settings().retention().isZero() || now - nextRetentionCheck < 0) {
            return;
        }
        nextRetentionCheck = now + RETENTION_CHECK_NANOS;
        store.expire(System.currentTimeMillis() - store.settings().retention().toMillis());
    }

    private List<Encoded> encode(List<StoreBatch> work) {
        List<Encoded> encoded = new ArrayList<>(work.size());
        for (StoreBatch batch : work) {
            try {
                ColumnBatch columns = batch.encode();
                checkKeys(columns);
                encoded.add(new Encoded(batch, columns));
            } catch (RuntimeException e) {
                store.count(StoreCounter.BATCHES_DISCARDED, 1);
                queue.done(List.of(batch));
                listener.discarded(batch, e);
            }
        }
        return encoded;
    }

    /** The store's invariant: key columns present, non-null, in key order. A plugin bug otherwise. */
    private static void checkKeys(ColumnBatch batch) {
        LongVector ts = keyColumn(batch, Column.TS);
        LongVector offsets = keyColumn(batch, Column.OFFSET);
        for (int row = batch.start() + 1; row < batch.end(); row++) {
            if (offsets.get(row) <= offsets.get(row - 1) || ts.get(row) < ts.get(row - 1)) {
                throw new IllegalStateException("encoded rows are not in key order at row " + row + ": offset "
                        + offsets.get(row) + " ts " + ts.get(row) + " after offset " + offsets.get(row - 1) + " ts " + ts.get(row - 1));
            }
        }
    }

    private static LongVector keyColumn(ColumnBatch batch, Column key) {
        ColumnVector vector = batch.vector(key.name());
        if (vector == null || vector.type() != ColumnType.INT64 || vector.hasNulls(batch.start(), batch.end())) {
            throw new IllegalStateException("encoded batch lacks a non-null INT64 column '" + key.name() + "': " + batch);
        }
        return (LongVector) vector;
    }

    /**
     * Writes the batches into the open file (publishing it whenever it is full, or when a batch does
     * not fit), then publishes the open file if {@code publish} (a roll or close). Retries
     * everything the open file held after a failure, as the class comment says.
     */
    private void write(List<StoreBatch> work, boolean publish) throws InterruptedException {
        List<StoreBatch> todo = work;
        int failures = 0;
        long backoff = FIRST_BACKOFF_MS;
        while (true) {
            List<Encoded> encoded = encode(todo);
            appended = 0;
            try {
                append(encoded);
                if (publish && open != null) {
                    publishOpen();
                }
                return;
            } catch (IOException | RuntimeException e) {
                failures++;
                store.count(StoreCounter.WRITE_ERRORS, 1);
                todo = abandon(encoded.subList(appended, encoded.size()), e);
                boolean closing = queue.isClosing();
                if (closing && failures >= CLOSING_ATTEMPTS) {
                    giveUp(todo, e);
                    return;
                }
                LOG.error("exchange {}: cannot write a Parquet file in {} (attempt {}); retrying {} batches in {} ms", store.exchange(),
                        store.directory(), failures, todo.size(), closing ? FIRST_BACKOFF_MS : backoff, e);
                if (!queue.awaitClosing(closing ? FIRST_BACKOFF_MS : backoff, TimeUnit.MILLISECONDS)) {
                    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
                }
            }
        }
    }

    /** Appends each batch as a row group, rolling files as needed; {@link #appended} counts those in a file. */
    private void append(List<Encoded> batches) throws IOException {
        for (int i = 0; i < batches.size(); i++) {
            Encoded batch = batches.get(i);
            if (open != null && !open.fits(batch.columns.schema())) {
                publishOpen();
            }
            if (open == null) {
                open = openFile(fileSchema(batches.subList(i, batches.size())));
            }
            open.write(batch.source, batch.columns);
            batch.source.written();
            appended++;
            store.count(StoreCounter.RECORDS_APPENDED, batch.columns.rows());
            queue.release(batch.source);
            if (open.isFull(store.settings().fileSize())) {
                publishOpen();
            }
        }
    }

    /** Union of the batches' columns; a column missing from some batch becomes nullable. */
    private static Schema fileSchema(List<Encoded> batches) {
        Schema union = batches.get(0).columns.schema();
        for (Encoded batch : batches) {
            union = union.union(batch.columns.schema());
        }
        List<Column> columns = new ArrayList<>(union.size());
        for (Column column : union.columns()) {
            boolean everywhere = batches.stream().allMatch(b -> b.columns.schema().contains(column.name()));
            columns.add(everywhere ? column : Column.nullable(column.name(), column.type()));
        }
        return Schema.of(columns);
    }

    private OpenFile openFile(Schema schema) throws IOException {
        long seq = store.catalog().nextSeq();
        Path temp = store.path(store.names().temporary(seq));
        java.nio.file.Path journalPath = store.journalPath(seq);
        RowGroupJournal journal = journalPath == null ? null : RowGroupJournal.create(journalPath);
        try {
            BatchFileWriter writer = new BatchFileWriter(new FileOutput(store.fileSystem(), temp), schema, compressor(), buffers,
                    store.settings().rowGroupBytes(), store.fileMetadata(), journal);
            return new OpenFile(seq, temp, schema, writer, journal, System.nanoTime());
        } catch (IOException | RuntimeException e) {
            if (journal != null) {
                deleteJournal(journal, e);
            }
            throw e;
        }
    }

    /** Closes the open file, publishes it, and forgets it; on failure it stays open for {@link #abandon}. */
    private void publishOpen() throws IOException {
        OpenFile file = open;
        BatchFileWriter writer = file.writer();
        writer.close();
        store.publish(file.temp(), file.seq(), writer.minTs(), writer.maxTs(), writer.rows(), List.copyOf(file.sources()));
        open = null;
        queue.done(file.sources());
        if (file.journal() != null) {
            try {
                file.journal().delete();
            } catch (IOException e) {
                LOG.warn("exchange {}: cannot delete the journal of published file {}: {}", store.exchange(), file.temp(), e.toString());
            }
        }
    }

    /**
     * Drops the open file after a failure (its batches will be written again) and returns the
     * batches to write again: the open file's, then those not written yet.
     */
    private List<StoreBatch> abandon(List<Encoded> unwritten, Throwable cause) {
        List<StoreBatch> again = new ArrayList<>();
        if (open != null) {
            open.writer().abort(cause);
            if (open.journal() != null) {
                deleteJournal(open.journal(), cause);
            }
            deleteQuietly(open.temp(), cause);
            again.addAll(open.sources());
            open = null;
        }
        for (Encoded e : unwritten) {
            again.add(e.source);
        }
        return again;
    }

    private void giveUp(List<StoreBatch> rest, Exception cause) {
        queue.done(rest);
        store.count(StoreCounter.BATCHES_UNWRITTEN, rest.size());
        LOG.error("exchange {}: giving up writing {} batches to {} while closing", store.exchange(), rest.size(), store.directory(), cause);
        listener.unwritten(rest, cause);
    }

    /**
     * The store's compressor, created on first use and kept, so files share it: zstd through our
     * {@link ZstdPageCompressor} at {@code parquet.compression.codec.zstd.level} (Hadoop settings,
     * default 3), other codecs through parquet's codec factory.
     */
    private BytesInputCompressor compressor() {
        if (compressor == null) {
            Compression compress = store.settings().compress();
            if (compress == Compression.ZSTD) {
                compressor = new ZstdPageCompressor(ZstdPageCompressor.level(store.configuration()));
            } else {
                codecs = new CodecFactory(store.configuration(), ParquetProperties.DEFAULT_PAGE_SIZE);
                compressor = codecs.getCompressor(compress.codec());
            }
        }
        return compressor;
    }

    private static void deleteJournal(RowGroupJournal journal, Throwable cause) {
        try {
            journal.delete();
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }

    private void deleteQuietly(Path temp, Throwable cause) {
        try {
            store.fileSystem().delete(temp, false);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }
}
