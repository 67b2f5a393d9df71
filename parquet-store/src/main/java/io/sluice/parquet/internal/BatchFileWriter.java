package io.sluice.parquet.internal;

import io.sluice.parquet.FooterKeys;
import io.sluice.stream.BinaryVector;
import io.sluice.stream.BooleanVector;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnType;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.DoubleVector;
import io.sluice.stream.IntVector;
import io.sluice.stream.LongVector;
import io.sluice.stream.Schema;
import io.sluice.stream.StringVector;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

/**
 * One Parquet file written from {@link ColumnBatch}es straight into parquet's column writers.
 *
 * <p>Why not {@code ParquetWriter}: its record path ({@code WriteSupport} into
 * {@code MessageColumnIO}'s record consumer) tracks the fields of every row in bit sets and
 * validates their order, about a quarter of the writer's time on 64-byte rows. Our rows are flat,
 * so each value goes to its column's writer directly: repetition level 0, definition level 0 for a
 * required column, 1 for a present optional value and 0 for a null. Pages close where parquet
 * decides (its column write store checks page sizes as rows end); a row group closes once
 * {@code rowGroupBytes} are buffered, checked every {@value #CHECK_ROWS} rows. The footer gets the
 * key range written ({@link FooterKeys}).
 *
 * <p>Text seen before in the file reuses its encoded bytes (topics repeat; up to
 * {@value #TEXT_CACHE} values per column). Used by the writer thread only.
 */
public final class BatchFileWriter implements Closeable {

    private static final int TEXT_CACHE = 4096;
    private static final int CHECK_ROWS = 1024;

    private final FileOutput out;
    private final ParquetFileWriter file;
    private final MessageType type;
    private final ParquetProperties properties;
    private final BytesInputCompressor compressor;
    private final long rowGroupBytes;
    private final Map<String, String> metadata;
    private final String[] names;
    private final ColumnType[] types;
    private final int[] presentLevel;
    private final ColumnDescriptor[] descriptors;
    private final ColumnWriter[] writers;
    private final ColumnVector[] vectors;
    private final TextCache[] texts;
    private ColumnChunkPageWriteStore pages;
    private ColumnWriteStore columns;
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
     * @param metadata footer entries besides the key range
     */
    public BatchFileWriter(FileOutput out, Schema schema, ParquetProperties properties, BytesInputCompressor compressor,
                           long rowGroupBytes, Map<String, String> metadata) throws IOException {
        if (schema.indexOf(Column.TS.name()) < 0 || schema.indexOf(Column.OFFSET.name()) < 0) {
            throw new IllegalArgumentException("a file schema needs the key columns ts and offset: " + schema);
        }
        this.out = out;
        this.type = SchemaMapping.toParquet(schema);
        this.properties = properties;
        this.compressor = compressor;
        this.rowGroupBytes = rowGroupBytes;
        this.metadata = Map.copyOf(metadata);
        int n = schema.size();
        this.names = new String[n];
        this.types = new ColumnType[n];
        this.presentLevel = new int[n];
        this.descriptors = new ColumnDescriptor[n];
        this.writers = new ColumnWriter[n];
        this.vectors = new ColumnVector[n];
        this.texts = new TextCache[n];
        for (int i = 0; i < n; i++) {
            Column column = schema.column(i);
            names[i] = column.name();
            types[i] = column.type();
            presentLevel[i] = column.nullable() ? 1 : 0;
            descriptors[i] = type.getColumnDescription(new String[] {column.name()});
            texts[i] = column.type() == ColumnType.STRING ? new TextCache() : null;
        }
        this.file = create(out, type, properties, rowGroupBytes);
        openRowGroup();
    }

    private static ParquetFileWriter create(FileOutput out, MessageType type, ParquetProperties properties, long rowGroupBytes)
            throws IOException {
        try {
            ParquetFileWriter created = new ParquetFileWriter(out, type, ParquetFileWriter.Mode.OVERWRITE, rowGroupBytes, 0,
                    null, properties);
            created.start();
            return created;
        } catch (IOException | RuntimeException e) {
            discard(out, e);
            throw e;
        }
    }

    /** Parquet's settings for a file of these columns: dictionaries for text, no min/max of opaque bytes. */
    public static ParquetProperties properties(Schema schema) {
        ParquetProperties.Builder builder = ParquetProperties.builder()
                .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
                .withPageWriteChecksumEnabled(true)
                .withDictionaryEncoding(false);
        for (Column column : schema.columns()) {
            if (column.type() == ColumnType.STRING) {
                builder.withDictionaryEncoding(column.name(), true);
            }
            if (column.type() == ColumnType.BINARY) {
                // Min/max of opaque payloads prunes nothing and costs a comparison per value.
                builder.withStatisticsEnabled(column.name(), false);
            }
        }
        return builder.build();
    }

    private void openRowGroup() {
        pages = ColumnChunkPageWriteStore.builder()
                .withSchema(type)
                .withCompressorProvider(column -> compressor)
                .withAllocator(properties.getAllocator())
                .withColumnIndexTruncateLength(properties.getColumnIndexTruncateLength())
                .withPageWriteChecksumEnabled(properties.getPageWriteChecksumEnabled())
                .build();
        columns = properties.newColumnWriteStore(type, pages, pages);
        for (int i = 0; i < writers.length; i++) {
            writers[i] = columns.getColumnWriter(descriptors[i]);
        }
        groupRows = 0;
    }

    /**
     * Appends the batch's rows. Its rows must be in key order with non-null keys (the store
     * checks); a file column the batch lacks is written as null.
     *
     * @throws IllegalArgumentException when a column has another type in the batch than in the file
     */
    public void write(ColumnBatch batch) throws IOException {
        if (batch.rows() == 0) {
            return;
        }
        bind(batch);
        trackKeys(batch);
        for (int row = batch.start(); row < batch.end(); row++) {
            writeRow(row);
            if (++groupRows % CHECK_ROWS == 0 && columns.getBufferedSize() >= rowGroupBytes) {
                closeRowGroup();
                openRowGroup();
            }
        }
        rows += batch.rows();
    }

    private void bind(ColumnBatch batch) {
        for (int i = 0; i < names.length; i++) {
            ColumnVector vector = batch.vector(names[i]);
            if (vector != null && vector.type() != types[i]) {
                throw new IllegalArgumentException("column '" + names[i] + "' is " + vector.type() + " in a batch but "
                        + types[i] + " in the file");
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

    private void writeRow(int row) {
        for (int i = 0; i < writers.length; i++) {
            ColumnVector vector = vectors[i];
            if (vector == null || vector.isNull(row)) {
                writers[i].writeNull(0, 0);
            } else {
                writeValue(i, vector, row);
            }
        }
        columns.endRecord();
    }

    private void writeValue(int i, ColumnVector vector, int row) {
        ColumnWriter writer = writers[i];
        int level = presentLevel[i];
        switch (types[i]) {
            case INT64 -> writer.write(((LongVector) vector).get(row), 0, level);
            case INT32 -> writer.write(((IntVector) vector).get(row), 0, level);
            case DOUBLE -> writer.write(((DoubleVector) vector).get(row), 0, level);
            case BOOLEAN -> writer.write(((BooleanVector) vector).get(row), 0, level);
            case BINARY -> writer.write(Binary.fromConstantByteArray(((BinaryVector) vector).get(row)), 0, level);
            case STRING -> writer.write(texts[i].encode(((StringVector) vector).get(row)), 0, level);
            default -> throw new IllegalStateException("unknown column type " + types[i]);
        }
    }

    private void closeRowGroup() throws IOException {
        try {
            if (groupRows > 0) {
                file.startBlock(groupRows);
                columns.flush();
                pages.flushToFileWriter(file);
                file.endBlock();
            }
        } finally {
            columns.close();
            pages.close();
        }
    }

    /** The bytes written to the file plus those buffered for it. */
    public long dataSize() throws IOException {
        return file.getPos() + columns.getBufferedSize();
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
        }
    }

    /** Closes the file unfinished after a failure; the caller deletes it. */
    public void abort(Exception cause) {
        if (!closed) {
            closed = true;
            discard(out, cause);
        }
    }

    private static void discard(FileOutput out, Exception cause) {
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

    /** Encoded bytes of recently written text, so a repeating topic is encoded once. */
    private static final class TextCache {
        private final Map<String, Binary> cache = new HashMap<>();
        private String lastText;
        private Binary lastBinary;

        Binary encode(String value) {
            if (value.equals(lastText)) {
                return lastBinary;
            }
            Binary encoded = cache.get(value);
            if (encoded == null) {
                if (cache.size() >= TEXT_CACHE) {
                    cache.clear();
                }
                // Array-backed: parquet hashes and compares it per row (dictionary, min/max),
                // several times faster than the buffer-backed Binary.fromString gives.
                encoded = Binary.fromConstantByteArray(value.getBytes(StandardCharsets.UTF_8));
                cache.put(value, encoded);
            }
            lastText = value;
            lastBinary = encoded;
            return encoded;
        }
    }
}
