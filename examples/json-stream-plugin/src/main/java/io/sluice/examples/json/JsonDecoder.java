package io.sluice.examples.json;

import io.sluice.stream.BinaryVector;
import io.sluice.stream.BooleanVector;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.DecodeSink;
import io.sluice.stream.DoubleVector;
import io.sluice.stream.LongVector;
import io.sluice.stream.StringVector;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes stored rows as {@link JsonRecordDescriptor} records: each selected column's value is
 * encoded by its column type, so fields, {@code offset}, {@code topic} and {@code raw} share one
 * rule. A column a chunk lacks (a field added to the settings after older files were written)
 * reads as absent. Stateless.
 */
final class JsonDecoder {

    private JsonDecoder() {
    }

    static void decode(ColumnBatch rows, List<String> columns, DecodeSink sink) {
        LongVector ts = rows.longs(Column.TS.name());
        if (ts == null) {
            throw new IllegalArgumentException("JSON rows lack column 'ts': " + rows.schema());
        }
        ColumnVector[] vectors = new ColumnVector[columns.size()];
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = rows.vector(columns.get(i));
        }
        byte[][] text = new byte[vectors.length][];
        for (int row = rows.start(); row < rows.end(); row++) {
            int length = JsonRecordDescriptor.COLUMNS_OFFSET;
            for (int i = 0; i < vectors.length; i++) {
                length += 1 + valueLength(vectors[i], row, text, i);
            }
            ByteBuffer out = sink.claim(length);
            out.putLong(ts.get(row));
            for (int i = 0; i < vectors.length; i++) {
                write(out, vectors[i], row, text[i]);
            }
        }
    }

    /** Bytes of a row's value after its presence byte; keeps a string's UTF-8 in {@code text[i]}. */
    private static int valueLength(ColumnVector vector, int row, byte[][] text, int i) {
        text[i] = null;
        if (vector == null || vector.isNull(row)) {
            return 0;
        }
        switch (vector.type()) {
            case DOUBLE:
            case INT64:
                return Long.BYTES;
            case BOOLEAN:
                return 1;
            case STRING:
                text[i] = ((StringVector) vector).get(row).getBytes(StandardCharsets.UTF_8);
                return JsonRecordDescriptor.LENGTH_PREFIX + text[i].length;
            case BINARY:
                return JsonRecordDescriptor.LENGTH_PREFIX + ((BinaryVector) vector).get(row).length;
            default:
                throw new IllegalStateException("JSON rows hold a column of type " + vector.type());
        }
    }

    private static void write(ByteBuffer out, ColumnVector vector, int row, byte[] text) {
        if (vector == null || vector.isNull(row)) {
            out.put(JsonRecordDescriptor.ABSENT);
            return;
        }
        out.put(JsonRecordDescriptor.PRESENT);
        switch (vector.type()) {
            case DOUBLE:
                out.putDouble(((DoubleVector) vector).get(row));
                break;
            case INT64:
                out.putLong(((LongVector) vector).get(row));
                break;
            case BOOLEAN:
                out.put((byte) (((BooleanVector) vector).get(row) ? 1 : 0));
                break;
            case STRING:
                out.putInt(text.length).put(text);
                break;
            case BINARY: {
                byte[] bytes = ((BinaryVector) vector).get(row);
                out.putInt(bytes.length).put(bytes);
                break;
            }
            default:
                throw new IllegalStateException("JSON rows hold a column of type " + vector.type());
        }
    }
}
