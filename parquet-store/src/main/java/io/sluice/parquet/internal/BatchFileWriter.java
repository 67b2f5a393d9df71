package io.sluice.parquet.internal;

import io.sluice.parquet.FooterKeys;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.LongVector;
import io.sluice.stream.Schema;
import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.Version;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

/**
 * One Parquet file written from {@link ColumnBatch}es, column by column through our
 * {@link ColumnEncoder}s into parquet's {@link ParquetFileWriter}, which writes page headers (with
 * checksums), chunk metadata, column and offset indexes and the footer.
 *
 * <p>A batch becomes a row group: it is appended in runs of up to {@value #CHECK_ROWS} rows, each
 * column in turn, and its row group closes at its end (or earlier, once the buffered bytes reach
 * {@code rowGroupBytes}, checked after every run). With a {@link RowGroupJournal}, each batch's
 * row groups are made durable and journaled before {@link #write} returns, so a crash keeps them.
 * The footer gets the key range written ({@link FooterKeys}). Used by the writer thread only.
 */
public final class BatchFileWriter implements Closeable {

    private static final int CHECK_ROWS = 1024;
    /** Parquet's settings for our files: v1 data pages with checksums, parquet's default page sizes. */
    private static final ParquetProperties PROPERTIES = ParquetProperties.builder()
            .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
            .withPageWriteChecksumEnabled(true)
            .build();

    private static final VarHandle BLOCKS = blocksField();

    private final FileOutput out;
    private final ParquetFileWriter file;
    private final MessageType type;
    private final RowGroupJournal journal;
    private int journaledBlocks;
    private final long rowGroupBytes;
    private final Map<String, String> metadata;
    private final Column[] columns;
    private final ColumnEncoder[] encoders;
    private final ColumnVector[] vectors;
    private long groupRows;
    private long rows;
    private long minTs = Long.MAX_VALUE;
    private long maxTs = Long.MIN_VALUE;
    private long minOffset = Long.MAX_VALUE;
    private long maxOffset = Long.MIN_VALUE;
    private boolean closed;

    /**
     * Creates the file and writes its header.
     *
     * @param buffers  the writer thread's page buffers, borrowed until the file is closed or aborted
     * @param metadata footer entries besides the key range
     * @param journal  where each batch's row groups are journaled once durable, or null
     */
    public BatchFileWriter(FileOutput out, Schema schema, BytesInputCompressor compressor, PageBufferPool buffers,
                           long rowGroupBytes, Map<String, String> metadata, RowGroupJournal journal) throws IOException {
        if (schema.indexOf(Column.TS.name()) < 0 || schema.indexOf(Column.OFFSET.name()) < 0) {
            throw new IllegalArgumentException("a file schema needs the key columns ts and offset: " + schema);
        }
        this.out = out;
        this.rowGroupBytes = rowGroupBytes;
        this.metadata = Map.copyOf(metadata);
        this.journal = journal;
        this.type = SchemaMapping.toParquet(schema);
        this.file = create(out, type, rowGroupBytes);
        int n = schema.size();
        this.columns = new Column[n];
        this.encoders = new ColumnEncoder[n];
        this.vectors = new ColumnVector[n];
        for (int i = 0; i < n; i++) {
            Column column = schema.column(i);
            columns[i] = column;
            encoders[i] = ColumnEncoder.of(column, type.getColumnDescription(new String[] {column.name()}), PROPERTIES,
                    compressor, buffers);
        }
    }

    private static ParquetFileWriter create(FileOutput out, MessageType type, long rowGroupBytes)
            throws IOException {
        try {
            ParquetFileWriter created = new ParquetFileWriter(out, type, ParquetFileWriter.Mode.OVERWRITE, rowGroupBytes, 0,
                    null, PROPERTIES);
            created.start();
            return created;
        } catch (IOException | RuntimeException e) {
            discard(out, e);
            throw e;
        }
    }

    /**
     * Appends the batch's rows. Its rows must be in key order with non-null keys (the store
     * checks); a file column the batch lacks is written as null.
     *
     * @throws IllegalArgumentException when a column has another type in the batch than in the file,
     *                                  or is required in the file but missing or nullable in the batch
     */
    public void write(ColumnBatch batch) throws IOException {
        if (batch.rows() == 0) {
            return;
        }
        bind(batch);
        trackKeys(batch);
        for (int from = batch.start(); from < batch.end(); ) {
            int to = Math.min(batch.end(), from + CHECK_ROWS);
            for (int i = 0; i < encoders.length; i++) {
                encoders[i].append(vectors[i], from, to);
            }
            groupRows += to - from;
            from = to;
            if (bufferedBytes() >= rowGroupBytes) {
                closeRowGroup();
            }
        }
        closeRowGroup();
        rows += batch.rows();
        if (journal != null) {
            journalRowGroups();
        }
    }

    /** Makes the batch's row groups durable in the file, then records them in the journal. */
    private void journalRowGroups() throws IOException {
        @SuppressWarnings("unchecked")
        List<BlockMetaData> blocks = (List<BlockMetaData>) BLOCKS.get(file);
        List<BlockMetaData> added = List.copyOf(blocks.subList(journaledBlocks, blocks.size()));
        out.sync();
        journal.append(new ParquetMetadata(new FileMetaData(type, Map.of(), Version.FULL_VERSION), added), footer(), file.getPos());
        journaledBlocks = blocks.size();
    }

    /**
     * Parquet's writer keeps the metadata of the row groups it wrote to itself until the footer;
     * the journal needs each one as soon as it is written, so it is read from that private list.
     * parquet-hadoop 1.18.1 has no public way to it: {@code getFooter()} refuses before {@code end()}
     * ("Cannot return unfinished footer"), and {@code endBlock()} returns nothing.
     */
    private static VarHandle blocksField() {
        try {
            return MethodHandles.privateLookupIn(ParquetFileWriter.class, MethodHandles.lookup())
                    .findVarHandle(ParquetFileWriter.class, "blocks", List.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError("this parquet-hadoop version's ParquetFileWriter has no 'blocks' list of "
                    + "row-group metadata, which the row-group journal reads: " + e);
        }
    }

    private void bind(ColumnBatch batch) {
        for (int i = 0; i < columns.length; i++) {
            Column column = columns[i];
            ColumnVector vector = batch.vector(column.name());
            if (vector != null && vector.type() != column.type()) {
                throw new IllegalArgumentException("column '" + column.name() + "' is " + vector.type() + " in a batch but "
                        + column.type() + " in the file");
            }
            if (!column.nullable() && (vector == null || batch.schema().column(column.name()).nullable())) {
                // A batch's required column has no nulls (ColumnBatch checks); a nullable one may.
                throw new IllegalArgumentException("column '" + column.name() + "' is required in the file but "
                        + (vector == null ? "missing from" : "nullable in") + " a batch");
            }
            vectors[i] = vector;
        }
    }

    private void trackKeys(ColumnBatch batch) {
        LongVector ts = batch.longs(Column.TS.name());
        LongVector offsets = batch.longs(Column.OFFSET.name());
        minTs = Math.min(minTs, ts.get(batch.start()));
        maxTs = Math.max(maxTs, ts.get(batch.end() - 1));
        minOffset = Math.min(minOffset, offsets.get(batch.start()));
        maxOffset = Math.max(maxOffset, offsets.get(batch.end() - 1));
    }

    private void closeRowGroup() throws IOException {
        if (groupRows == 0) {
            return;
        }
        file.startBlock(groupRows);
        for (ColumnEncoder encoder : encoders) {
            encoder.writeChunk(file);
        }
        file.endBlock();
        groupRows = 0;
    }

    private long bufferedBytes() {
        long total = 0;
        for (ColumnEncoder encoder : encoders) {
            total += encoder.bufferedBytes();
        }
        return total;
    }

    /** The bytes written to the file plus those buffered for it. */
    public long dataSize() throws IOException {
        return file.getPos() + bufferedBytes();
    }

    /** Smallest offset written so far. */
    public long minOffset() {
        return minOffset;
    }

    /** Largest offset written so far. */
    public long maxOffset() {
        return maxOffset;
    }

    /** Smallest ts written so far. */
    public long minTs() {
        return minTs;
    }

    /** Largest ts written so far. */
    public long maxTs() {
        return maxTs;
    }

    /** Rows written so far. */
    public long rows() {
        return rows;
    }

    /** Writes the last row group and the footer, and closes the file (made durable by its output). */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            closeRowGroup();
            file.end(footer());
            file.close();
        } catch (IOException | RuntimeException e) {
            discard(out, e);
            throw e;
        } finally {
            releaseBuffers();
        }
    }

    /** Closes the file unfinished after a failure; the caller deletes it. */
    public void abort(Throwable cause) {
        if (!closed) {
            closed = true;
            releaseBuffers();
            discard(out, cause);
        }
    }

    private void releaseBuffers() {
        for (ColumnEncoder encoder : encoders) {
            encoder.release();
        }
    }

    private static void discard(FileOutput out, Throwable cause) {
        try {
            out.discard();
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }

    private Map<String, String> footer() {
        Map<String, String> footer = new HashMap<>(metadata);
        footer.put(FooterKeys.FORMAT, FooterKeys.FORMAT_VERSION);
        footer.put(FooterKeys.ROWS, Long.toString(rows));
        footer.put(FooterKeys.MIN_TS, Long.toString(minTs));
        footer.put(FooterKeys.MAX_TS, Long.toString(maxTs));
        footer.put(FooterKeys.MIN_OFFSET, Long.toString(minOffset));
        footer.put(FooterKeys.MAX_OFFSET, Long.toString(maxOffset));
        return footer;
    }
}
