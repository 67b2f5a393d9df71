package io.sluice.parquet;

import io.sluice.parquet.internal.BatchFileWriter;
import io.sluice.parquet.internal.FileOutput;
import io.sluice.parquet.internal.PageBufferPool;
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
 * encode each (the plugin runs here, off the capture path), and write them in order into files.
 *
 * <p>Batch to file: all batches taken together share one file schema (the union of their
 * columns; a column some batch lacks is nullable), and go into files in order; a file takes
 * whole batches and gets no further batch once its size (written plus buffered) reaches
 * {@code file_size}, so a quiet exchange gets one file per batch and a busy one coalesces what
 * queued up. Row groups close at {@code row_group_bytes}. Each file is written under its temporary
 * name, made durable, renamed to its final name, then published to the catalog and the
 * listener; then retention runs.
 *
 * <p>A failed write deletes the temporary file and is retried with back-off (100 ms doubling to
 * 10 s) for as long as the store is open, so a directory that is briefly unavailable costs
 * nothing; meanwhile the queue fills and the ring's fullOp decides. Once the store is closing, a
 * batch gets {@value #CLOSING_ATTEMPTS} more attempts and is then handed to
 * {@link StoreListener#unwritten}.
 */
final class StoreWriter implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(StoreWriter.class);
    private static final long FIRST_BACKOFF_MS = 100;
    private static final long MAX_BACKOFF_MS = 10_000;
    static final int CLOSING_ATTEMPTS = 3;

    private final ParquetStore store;
    private final WriteQueue queue;
    private final StoreListener listener;
    private final PageBufferPool buffers = new PageBufferPool();
    private CodecFactory codecs;
    private BytesInputCompressor compressor;

    private record Encoded(StoreBatch source, ColumnBatch columns) {
    }

    StoreWriter(ParquetStore store, WriteQueue queue, StoreListener listener) {
        this.store = store;
        this.queue = queue;
        this.listener = listener;
    }

    @Override
    public void run() {
        try {
            while (true) {
                List<StoreBatch> work = queue.takeAll();
                if (work.isEmpty()) {
                    return;
                }
                write(encode(work));
            }
        } catch (Throwable e) {
            store.writerDied(e); // counts, queues its batches again, starts the next writer or says why not
        } finally {
            if (codecs != null) {
                codecs.release(); // and the compressor it made
            } else if (compressor != null) {
                compressor.release();
            }
        }
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
                queue.release(batch);
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

    private void write(List<Encoded> batches) throws InterruptedException {
        if (batches.isEmpty()) {
            return;
        }
        Schema schema = fileSchema(batches);
        int from = 0;
        int failures = 0;
        long backoff = FIRST_BACKOFF_MS;
        while (from < batches.size()) {
            try {
                from = writeFile(batches, from, schema);
                failures = 0;
                backoff = FIRST_BACKOFF_MS;
            } catch (IOException | RuntimeException e) {
                failures++;
                store.count(StoreCounter.WRITE_ERRORS, 1);
                boolean closing = queue.isClosing();
                if (closing && failures >= CLOSING_ATTEMPTS) {
                    giveUp(batches.subList(from, batches.size()), e);
                    return;
                }
                LOG.error("exchange {}: cannot write a Parquet file in {} (attempt {}); retrying in {} ms", store.exchange(),
                        store.directory(), failures, closing ? FIRST_BACKOFF_MS : backoff, e);
                if (!queue.awaitClosing(closing ? FIRST_BACKOFF_MS : backoff, TimeUnit.MILLISECONDS)) {
                    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
                }
            }
        }
    }

    private void giveUp(List<Encoded> rest, Exception cause) {
        List<StoreBatch> sources = new ArrayList<>(rest.size());
        for (Encoded e : rest) {
            sources.add(e.source);
            queue.release(e.source);
        }
        store.count(StoreCounter.BATCHES_UNWRITTEN, sources.size());
        LOG.error("exchange {}: giving up writing {} batches to {} while closing", store.exchange(), sources.size(), store.directory(), cause);
        listener.unwritten(sources, cause);
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

    /** Writes batches [from, k) into one file, publishes it, and returns k. */
    private int writeFile(List<Encoded> batches, int from, Schema schema) throws IOException {
        long seq = store.catalog().nextSeq();
        Path temp = store.path(store.names().temporary(seq));
        int next = from;
        BatchFileWriter writer = null;
        try {
            writer = new BatchFileWriter(new FileOutput(store.fileSystem(), temp), schema, compressor(),
                    buffers, store.settings().rowGroupBytes(), store.fileMetadata());
            do {
                writer.write(batches.get(next).columns);
                next++;
            } while (next < batches.size() && writer.dataSize() < store.settings().fileSize());
            writer.close();
        } catch (IOException | RuntimeException e) {
            if (writer != null) {
                writer.abort(e);
            }
            deleteQuietly(temp, e);
            throw e;
        }
        List<StoreBatch> sources = new ArrayList<>(next - from);
        for (int i = from; i < next; i++) {
            sources.add(batches.get(i).source);
        }
        store.publish(temp, seq, writer.minTs(), writer.maxTs(), writer.rows(), sources);
        return next;
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

    private void deleteQuietly(Path temp, Exception cause) {
        try {
            store.fileSystem().delete(temp, false);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }
}
