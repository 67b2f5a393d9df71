package io.sluice.server.http;

import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.Schema;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Rows as CSV (RFC 4180): a header of column names, then one line per row; a field holding a
 * comma, quote or line break is quoted. A byte column that is UTF-8 text is written as text,
 * other bytes as {@code base64:} followed by their base64.
 */
final class CsvRecordSink implements RecordSink {
    private final Schema schema;
    private final OutputStream out;
    private final StringBuilder line = new StringBuilder(256);

    /** Writes the header at once. */
    CsvRecordSink(Schema schema, OutputStream out) throws IOException {
        this.schema = schema;
        this.out = out;
        for (int c = 0; c < schema.size(); c++) {
            if (c > 0) {
                line.append(',');
            }
            field(schema.column(c).name());
        }
        line.append("\r\n");
        out.write(line.toString().getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void write(ColumnBatch chunk) throws IOException {
        ColumnVector[] vectors = RecordsEndpoint.vectors(chunk, schema);
        for (int r = chunk.start(); r < chunk.end(); r++) {
            line.setLength(0);
            for (int c = 0; c < vectors.length; c++) {
                if (c > 0) {
                    line.append(',');
                }
                Object cell = CellText.of(vectors[c], r);
                if (cell instanceof CellText.Bytes bytes) {
                    field(bytes.text() != null ? bytes.text() : "base64:" + bytes.base64());
                } else if (cell != null) {
                    field(cell.toString());
                }
            }
            line.append("\r\n");
            out.write(line.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    private void field(String text) {
        boolean quote = text.indexOf(',') >= 0 || text.indexOf('"') >= 0 || text.indexOf('\n') >= 0
                || text.indexOf('\r') >= 0;
        if (!quote) {
            line.append(text);
            return;
        }
        line.append('"').append(text.replace("\"", "\"\"")).append('"');
    }

    @Override
    public void finish(long rows) {
        // CSV has no trailer
    }
}
