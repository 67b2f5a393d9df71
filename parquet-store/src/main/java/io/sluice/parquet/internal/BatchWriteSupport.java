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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Feeds rows of {@link ColumnBatch}es to Parquet's record consumer: one {@link #bind} per batch
 * resolves the file's columns in the batch once (a column the batch lacks is written as null),
 * then {@link #write} per row switches on a precomputed type array, with no per-row lookups or
 * objects besides Parquet's own Binary wrappers. Text seen before in the file reuses its encoded
 * bytes (topics repeat; the cache holds up to {@value #TEXT_CACHE} values per column). It also
 * tracks the key range written, for the footer.
 *
 * <p>One instance per file; used only by the writer thread.
 */
public final class BatchWriteSupport extends WriteSupport<BatchWriteSupport.Row> {

    static final int TEXT_CACHE = 4096;

    private final Schema schema;
    private final Map<String, String> staticMetadata;
    private final String[] names;
    private final ColumnType[] types;
    private final ColumnVector[] vectors;
    private final String[] lastText;
    private final Binary[] lastBinary;
    private final List<Map<String, Binary>> textCaches;
    private final int tsIndex;
    private final int offsetIndex;
    private RecordConsumer consumer;
    private long rows;
    private long minTs = Long.MAX_VALUE;
    private long maxTs = Long.MIN_VALUE;
    private long minOffset = Long.MAX_VALUE;
    private long maxOffset = Long.MIN_VALUE;

    /** The row being written: a reusable cursor, so writing allocates no row objects. */
    public static final class Row {
        int index;

        public void at(int row) {
            index = row;
        }
    }

    public BatchWriteSupport(Schema schema, Map<String, String> staticMetadata) {
        this.schema = schema;
        this.staticMetadata = Map.copyOf(staticMetadata);
        int n = schema.size();
        this.names = new String[n];
        this.types = new ColumnType[n];
        this.vectors = new ColumnVector[n];
        this.lastText = new String[n];
        this.lastBinary = new Binary[n];
        this.textCaches = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            names[i] = schema.column(i).name();
            types[i] = schema.column(i).type();
            textCaches.add(types[i] == ColumnType.STRING ? new HashMap<>() : null);
        }
        this.tsIndex = schema.indexOf(Column.TS.name());
        this.offsetIndex = schema.indexOf(Column.OFFSET.name());
        if (tsIndex < 0 || offsetIndex < 0) {
            throw new IllegalArgumentException("a file schema needs the key columns ts and offset: " + schema);
        }
    }

    /** Points the writer at a batch; its columns must have the file's types. */
    public void bind(ColumnBatch batch) {
        for (int i = 0; i < names.length; i++) {
            ColumnVector vector = batch.vector(names[i]);
            if (vector != null && vector.type() != types[i]) {
                throw new IllegalArgumentException("column '" + names[i] + "' is " + vector.type() + " in a batch but "
                        + types[i] + " in the file");
            }
            vectors[i] = vector;
            lastText[i] = null;
            lastBinary[i] = null;
        }
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
        return new WriteContext(SchemaMapping.toParquet(schema), staticMetadata);
    }

    /** Still abstract in parquet 1.18, though deprecated. */
    @Override
    @SuppressWarnings("deprecation")
    public WriteContext init(Configuration configuration) {
        return new WriteContext(SchemaMapping.toParquet(schema), staticMetadata);
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
        this.consumer = recordConsumer;
    }

    @Override
    public void write(Row cursor) {
        int row = cursor.index;
        trackKeys(row);
        consumer.startMessage();
        for (int i = 0; i < names.length; i++) {
            ColumnVector vector = vectors[i];
            if (vector == null || vector.isNull(row)) {
                continue;
            }
            consumer.startField(names[i], i);
            writeValue(i, vector, row);
            consumer.endField(names[i], i);
        }
        consumer.endMessage();
        rows++;
    }

    private void writeValue(int i, ColumnVector vector, int row) {
        switch (types[i]) {
            case INT64 -> consumer.addLong(((LongVector) vector).get(row));
            case INT32 -> consumer.addInteger(((IntVector) vector).get(row));
            case DOUBLE -> consumer.addDouble(((DoubleVector) vector).get(row));
            case BOOLEAN -> consumer.addBoolean(((BooleanVector) vector).get(row));
            case BINARY -> consumer.addBinary(Binary.fromConstantByteArray(((BinaryVector) vector).get(row)));
            case STRING -> consumer.addBinary(text(i, ((StringVector) vector).get(row)));
            default -> throw new IllegalStateException("unknown column type " + types[i]);
        }
    }

    private Binary text(int i, String value) {
        if (value.equals(lastText[i])) {
            return lastBinary[i];
        }
        Map<String, Binary> cache = textCaches.get(i);
        Binary encoded = cache.get(value);
        if (encoded == null) {
            if (cache.size() >= TEXT_CACHE) {
                cache.clear();
            }
            encoded = Binary.fromString(value);
            cache.put(value, encoded);
        }
        lastText[i] = value;
        lastBinary[i] = encoded;
        return encoded;
    }

    private void trackKeys(int row) {
        long ts = ((LongVector) vectors[tsIndex]).get(row);
        long offset = ((LongVector) vectors[offsetIndex]).get(row);
        minTs = Math.min(minTs, ts);
        maxTs = Math.max(maxTs, ts);
        minOffset = Math.min(minOffset, offset);
        maxOffset = Math.max(maxOffset, offset);
    }

    @Override
    public FinalizedWriteContext finalizeWrite() {
        Map<String, String> metadata = new HashMap<>();
        metadata.put(FooterKeys.FORMAT, FooterKeys.FORMAT_VERSION);
        metadata.put(FooterKeys.ROWS, Long.toString(rows));
        metadata.put(FooterKeys.MIN_TS, Long.toString(minTs));
        metadata.put(FooterKeys.MAX_TS, Long.toString(maxTs));
        metadata.put(FooterKeys.MIN_OFFSET, Long.toString(minOffset));
        metadata.put(FooterKeys.MAX_OFFSET, Long.toString(maxOffset));
        return new FinalizedWriteContext(metadata);
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

    @Override
    public String getName() {
        return "sluice";
    }
}
