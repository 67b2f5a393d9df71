package io.sluice.server.http;

import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.Schema;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Rows as NanoMQ-style JSON, streamed: {@code {"code":0,"data":[{"ts":..,"offset":..,"topic":..,
 * "data":".."}, ...],"meta":{"count":n, ...}}}. A byte column that is UTF-8 text is a string;
 * other bytes are {@code {"base64":".."}}.
 */
final class JsonRecordSink implements RecordSink {
    private final Schema schema;
    private final OutputStream out;
    private final Map<String, Object> meta;
    private final StringBuilder row = new StringBuilder(256);
    private boolean first = true;

    /** Writes the opening at once. */
    JsonRecordSink(Schema schema, OutputStream out, Map<String, Object> meta) throws IOException {
        this.schema = schema;
        this.out = out;
        this.meta = meta;
        out.write("{\"code\":0,\"data\":[".getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void write(ColumnBatch chunk) throws IOException {
        ColumnVector[] vectors = RecordsEndpoint.vectors(chunk, schema);
        for (int r = chunk.start(); r < chunk.end(); r++) {
            row.setLength(0);
            row.append(first ? "\n{" : ",\n{");
            first = false;
            for (int c = 0; c < vectors.length; c++) {
                if (c > 0) {
                    row.append(',');
                }
                JsonWriter.appendString(row, schema.column(c).name());
                row.append(':');
                Object cell = CellText.of(vectors[c], r);
                if (cell instanceof CellText.Bytes bytes) {
                    JsonWriter.append(row, bytes.text() != null ? bytes.text() : Map.of("base64", bytes.base64()));
                } else {
                    JsonWriter.append(row, cell);
                }
            }
            row.append('}');
            out.write(row.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    public void finish(long rows) throws IOException {
        meta.put("count", rows);
        out.write(("\n],\"meta\":" + JsonWriter.write(meta) + "}\n").getBytes(StandardCharsets.UTF_8));
    }
}
