package io.sluice.examples.json;

import io.sluice.stream.BinaryVector;
import io.sluice.stream.CaptureBatch;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnVector;
import java.util.ArrayList;
import java.util.List;

/**
 * One encoding of a capture batch into the JSON plugin's columns (see {@link JsonCodec}): each
 * payload is parsed once, its fields land in typed arrays, and a payload with any problem is also
 * kept whole in {@code raw}. Rows are numbered from 0 ({@link CaptureBatch#fromZero()}). One use,
 * one thread.
 */
final class JsonEncoder {

    private final JsonCodec codec;
    private final CaptureBatch batch;
    private final int[] problemCounts = new int[JsonCounter.values().length];
    private int firstRawRow = -1;
    private int kept;

    JsonEncoder(JsonCodec codec, CaptureBatch batch) {
        this.codec = codec;
        this.batch = batch.fromZero();
    }

    ColumnBatch encode() {
        int rows = batch.size();
        List<JsonField> fields = codec.fields();
        FieldColumn[] columns = new FieldColumn[fields.size()];
        for (JsonField field : fields) {
            columns[field.index()] = FieldColumn.of(field.type(), rows);
        }
        byte[][] raw = new byte[rows][];
        boolean[] found = new boolean[fields.size()];
        for (int row = 0; row < rows; row++) {
            byte[] payload = batch.payload(row);
            int problems = codec.extractor().extract(payload, columns, row, found);
            if (problems != JsonExtractor.OK) {
                raw[row] = payload;
                note(problems, row);
            }
        }
        List<ColumnVector> vectors = new ArrayList<>(codec.schema().size());
        vectors.add(batch.tsVector());
        vectors.add(batch.offsetVector());
        vectors.add(batch.topicVector());
        for (FieldColumn column : columns) {
            vectors.add(column.vector());
        }
        vectors.add(BinaryVector.of(raw));
        return ColumnBatch.of(codec.schema(), vectors, rows);
    }

    private void note(int problems, int row) {
        if (firstRawRow < 0) {
            firstRawRow = row;
        }
        kept++;
        if ((problems & JsonExtractor.NOT_JSON) != 0) {
            problemCounts[JsonCounter.NOT_JSON.ordinal()]++;
        }
        if ((problems & JsonExtractor.MISSING) != 0) {
            problemCounts[JsonCounter.MISSING_FIELDS.ordinal()]++;
        }
        if ((problems & JsonExtractor.WRONG_TYPE) != 0) {
            problemCounts[JsonCounter.WRONG_TYPES.ordinal()]++;
        }
    }

    /** How many payloads had the counter's problem. */
    int count(JsonCounter counter) {
        return problemCounts[counter.ordinal()];
    }

    /** How many payloads were kept raw. */
    int kept() {
        return kept;
    }

    /** The row, numbered from the window's start, of the first payload kept raw, or -1. */
    int firstRawRow() {
        return firstRawRow;
    }
}
