package io.sluice.server.http;

import io.sluice.parquet.FooterKeys;
import io.sluice.parquet.ParquetExport;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.Schema;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Rows as one Parquet file, with the columns and types the exchange stores. A Parquet footer comes
 * last, so the file is written to a temporary file first (bounded, as the range read is) and then
 * streamed; the temporary file is deleted either way.
 */
final class ParquetRecordSink implements RecordSink {
    private final Path temp;
    private final ParquetExport export;
    private final OutputStream out;

    ParquetRecordSink(Schema schema, OutputStream out, String exchange) throws IOException {
        this.out = out;
        this.temp = Files.createTempFile("sluice-export-" + exchange.replaceAll("[^A-Za-z0-9_-]", "_"), ".parquet");
        try {
            this.export = ParquetExport.create(temp, schema, Map.of(FooterKeys.EXCHANGE, exchange));
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
    }

    @Override
    public void write(ColumnBatch chunk) throws IOException {
        export.write(chunk);
    }

    @Override
    public void finish(long rows) throws IOException {
        try {
            export.close();
            Files.copy(temp, out);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    @Override
    public void abandon(Exception cause) {
        try {
            export.close();
        } catch (IOException | RuntimeException e) {
            cause.addSuppressed(e);
        }
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }
}
