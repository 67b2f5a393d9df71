package io.sluice.parquet;

import io.sluice.parquet.internal.BatchFileWriter;
import io.sluice.parquet.internal.FileOutput;
import io.sluice.parquet.internal.PageBufferPool;
import io.sluice.parquet.internal.ZstdPageCompressor;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.Schema;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.hadoop.codec.ZstandardCodec;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * One standalone Parquet file written from query results (a download of a range), with the
 * same writer, column layout and zstd compression as the store's own files, but outside any
 * store: no catalog, no rename, no retention. Zero rows still make a valid file. One thread.
 */
public final class ParquetExport implements Closeable {
    /** Row groups of an export; small enough that a reader can start on the first soon. */
    private static final long ROW_GROUP_BYTES = 32L << 20;

    private final BatchFileWriter writer;
    private final ZstdPageCompressor compressor;

    private ParquetExport(BatchFileWriter writer, ZstdPageCompressor compressor) {
        this.writer = writer;
        this.compressor = compressor;
    }

    /**
     * Creates {@code file} (a local path, overwritten) for rows of {@code schema}, which must hold
     * the key columns {@code ts} and {@code offset}; a batch lacking a column gets nulls there.
     *
     * @param metadata footer entries besides the key range, e.g. {@link FooterKeys#EXCHANGE}
     */
    public static ParquetExport create(Path file, Schema schema, Map<String, String> metadata) throws IOException {
        FileSystem local = FileSystem.getLocal(new Configuration()).getRawFileSystem();
        ZstdPageCompressor compressor = new ZstdPageCompressor(ZstandardCodec.DEFAULT_PARQUET_COMPRESS_ZSTD_LEVEL);
        try {
            BatchFileWriter writer = new BatchFileWriter(
                    new FileOutput(local, new org.apache.hadoop.fs.Path(file.toAbsolutePath().toUri())), schema,
                    compressor, new PageBufferPool(), ROW_GROUP_BYTES, metadata, null);
            return new ParquetExport(writer, compressor);
        } catch (IOException | RuntimeException e) {
            compressor.release();
            throw e;
        }
    }

    /** Appends rows in key order. */
    public void write(ColumnBatch batch) throws IOException {
        writer.write(batch);
    }

    /** Writes the footer and closes the file. */
    @Override
    public void close() throws IOException {
        try {
            writer.close();
        } finally {
            compressor.release();
        }
    }
}
