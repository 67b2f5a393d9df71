package io.sluice.parquet.internal;

import io.sluice.stream.Column;
import io.sluice.stream.ColumnVector;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.schema.PrimitiveType;

/**
 * One column of the row group being written, encoded into Parquet v1 data pages.
 *
 * <p>Our columns are flat, so a page is: for an OPTIONAL column, the definition levels (1 present,
 * 0 null) as a 4-byte little-endian length then the RLE/bit-packed hybrid at bit width 1; for a
 * REQUIRED one, nothing (repetition levels never exist); then the present values, PLAIN or
 * dictionary ids (see {@link TextColumnEncoder}). A page closes at the page row limit or once its
 * values reach the page size, as parquet-java's writer does; it is then compressed and kept with
 * its statistics until the row group ends, when the chunk is written: dictionary page first, then
 * the data pages, from which parquet's file writer builds the chunk statistics, column index and
 * offset index.
 *
 * <p>Why not parquet's {@code ColumnWriter}: it updates statistics and hashes dictionary entries
 * value by value through virtual calls, most of the writer's time on small rows. A subclass here
 * encodes a run of rows in one loop and keeps what its statistics need (the min and max of the
 * run, or the distinct dictionary entries of the page) and hands parquet's {@link Statistics} only
 * those (doubles go value by value, for parquet's NaN rules), so the statistics mean exactly what
 * parquet's would.
 */
abstract class ColumnEncoder {

    private static final int LEVEL_BUFFER = 1024;

    protected final PrimitiveType type;
    protected final PageBuffer values;
    protected final PageBufferPool buffers;
    protected final int pageBytes;
    private final ColumnDescriptor descriptor;
    private final boolean nullable;
    private final BytesInputCompressor compressor;
    private final int pageRows;
    private final List<EncodedPage> pages = new ArrayList<>();
    /** The open page's definition level per row, OPTIONAL columns only (a page has at most pageRows). */
    private final byte[] levels;
    private int rows;
    private int nulls;
    private long chunkRows;
    private long bufferedBytes;

    private record EncodedPage(BytesInput bytes, int uncompressedBytes, int rows, Statistics<?> statistics,
                               SizeStatistics sizes, Encoding encoding) {
    }

    ColumnEncoder(Column column, ColumnDescriptor descriptor, ParquetProperties properties, BytesInputCompressor compressor,
                  PageBufferPool buffers) {
        this.buffers = buffers;
        this.values = buffers.take();
        this.type = descriptor.getPrimitiveType();
        this.descriptor = descriptor;
        this.nullable = column.nullable();
        this.compressor = compressor;
        this.pageBytes = properties.getPageSizeThreshold();
        this.pageRows = properties.getPageRowCountLimit();
        this.levels = nullable ? new byte[pageRows] : null;
    }

    /** The encoder for the column's type. */
    static ColumnEncoder of(Column column, ColumnDescriptor descriptor, ParquetProperties properties,
                            BytesInputCompressor compressor, PageBufferPool buffers) {
        if (column.type() == io.sluice.stream.ColumnType.INT64 && isKey(column)) {
            return new DeltaColumnEncoder(column, descriptor, properties, compressor, buffers);
        }
        return switch (column.type()) {
            case INT64, INT32 -> new IntegralColumnEncoder(column, descriptor, properties, compressor, buffers);
            case DOUBLE -> new DoubleColumnEncoder(column, descriptor, properties, compressor, buffers);
            case BOOLEAN -> new BooleanColumnEncoder(column, descriptor, properties, compressor, buffers);
            case BINARY -> new BinaryColumnEncoder(column, descriptor, properties, compressor, buffers);
            case STRING -> new TextColumnEncoder(column, descriptor, properties, compressor, buffers);
        };
    }

    /** The key columns ts and offset, which grow by small steps: DELTA_BINARY_PACKED suits them (see DeltaColumnEncoder). */
    private static boolean isKey(Column column) {
        return column.name().equals(Column.TS.name()) || column.name().equals(Column.OFFSET.name());
    }

    /**
     * Appends rows [from, to) of the vector; a null vector means every row is null. A REQUIRED
     * column's vector must have no null in the range (the caller checks).
     */
    final void append(ColumnVector vector, int from, int to) throws IOException {
        while (from < to) {
            int limit = Math.min(to, from + pageRows - rows);
            int next = vector == null ? limit : encode(vector, from, limit);
            if (nullable) {
                recordLevels(vector, from, next);
            }
            rows += next - from;
            from = next;
            if (rows >= pageRows || pageFull()) {
                closePage();
            }
        }
    }

    /**
     * Encodes the non-null values of rows [from, to) into the open page and returns the row after
     * the last one taken, which is {@code to} unless the page filled first (then at least one row
     * was taken).
     */
    abstract int encode(ColumnVector vector, int from, int to);

    /** The open page's values, encoded; valid until the page is reset. PLAIN by default. */
    BytesInput pageValues() throws IOException {
        return values.view();
    }

    /** The open page's statistics, without its null count. */
    abstract Statistics<?> pageStatistics();

    /** Forgets the open page (its values buffer is reset by the caller). */
    abstract void resetPage();

    /** How the open page's values are encoded. */
    Encoding pageEncoding() {
        return Encoding.PLAIN;
    }

    /** Whether the open page should close now. */
    boolean pageFull() {
        return values.size() >= pageBytes;
    }

    /** Bytes of BYTE_ARRAY values in the open page before encoding, for the size statistics. */
    long unencodedBytes() {
        return 0;
    }

    /** The chunk's dictionary page, compressed, or null when no page of the chunk uses one. */
    DictionaryPage dictionaryPage(BytesInputCompressor compressor) throws IOException {
        return null;
    }

    /** Forgets chunk-wide state (a dictionary) once the chunk is written. */
    void resetChunk() {
    }

    private void recordLevels(ColumnVector vector, int from, int to) {
        for (int row = from; row < to; row++) {
            boolean isNull = vector == null || vector.isNull(row);
            levels[rows + row - from] = (byte) (isNull ? 0 : 1);
            nulls += isNull ? 1 : 0;
        }
    }

    /** Compressed bytes of the closed pages plus the open page's (for the row-group limit). */
    final long bufferedBytes() {
        return bufferedBytes + openBytes();
    }

    /** Bytes the open page holds so far, before compression. */
    long openBytes() {
        return values.size();
    }

    private void closePage() throws IOException {
        if (rows == 0) {
            return;
        }
        try (RunLengthBitPackingHybridEncoder levelEncoder = nullable ? encodeLevels() : null) {
            BytesInput body = pageValues();
            BytesInput page = levelEncoder == null ? body : withLevels(levelEncoder.toBytes(), body);
            long uncompressed = page.size();
            BytesInput compressed = BytesInput.copy(compressor.compress(page));
            Statistics<?> statistics = pageStatistics();
            statistics.incrementNumNulls(nulls);
            SizeStatistics sizes = new SizeStatistics(type, unencodedBytes(), List.of(), List.of());
            pages.add(new EncodedPage(compressed, Math.toIntExact(uncompressed), rows, statistics, sizes, pageEncoding()));
            bufferedBytes += compressed.size();
        }
        chunkRows += rows;
        rows = 0;
        nulls = 0;
        values.reset();
        resetPage();
    }

    private static BytesInput withLevels(BytesInput levelBytes, BytesInput body) {
        return BytesInput.concat(BytesInput.fromInt(Math.toIntExact(levelBytes.size())), levelBytes, body);
    }

    private RunLengthBitPackingHybridEncoder encodeLevels() throws IOException {
        RunLengthBitPackingHybridEncoder encoder = new RunLengthBitPackingHybridEncoder(1, LEVEL_BUFFER, pageBytes,
                HeapByteBufferAllocator.getInstance());
        for (int i = 0; i < rows; i++) {
            encoder.writeInt(levels[i]);
        }
        return encoder;
    }

    /** Closes the open page and writes the chunk: dictionary page, then data pages. */
    final void writeChunk(ParquetFileWriter file) throws IOException {
        closePage();
        file.startColumn(descriptor, chunkRows, compressor.getCodecName());
        DictionaryPage dictionary = dictionaryPage(compressor);
        if (dictionary != null) {
            file.writeDictionaryPage(dictionary);
        }
        Encoding levelEncoding = nullable ? Encoding.RLE : Encoding.BIT_PACKED;
        for (EncodedPage page : pages) {
            file.writeDataPage(page.rows, page.uncompressedBytes, page.bytes, page.statistics, page.rows,
                    Encoding.BIT_PACKED, levelEncoding, page.encoding, null, null, page.sizes);
        }
        file.endColumn();
        pages.clear();
        chunkRows = 0;
        bufferedBytes = 0;
        resetChunk();
    }

    /** Returns the page buffer to the pool; the encoder is not used again. */
    final void release() {
        buffers.give(values);
    }
}
