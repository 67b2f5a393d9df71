package io.sluice.parquet.internal;

import io.sluice.stream.BinaryVector;
import io.sluice.stream.BooleanVector;
import io.sluice.stream.ColumnType;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.DoubleVector;
import io.sluice.stream.IntVector;
import io.sluice.stream.LongVector;
import io.sluice.stream.StringVector;
import org.apache.parquet.column.ColumnReader;

/**
 * Reads one flat column of a row group value by value into the arrays of a chunk. Columns are
 * read in step, one row at a time, so a chunk can stop at any row (by count, bytes or key).
 */
public final class ColumnCursor {

    private final ColumnReader reader;
    private final ColumnType type;
    private final int maxDefinition;
    private long[] longs;
    private int[] ints;
    private double[] doubles;
    private boolean[] booleans;
    private byte[][] binaries;
    private String[] texts;
    private boolean[] nulls;
    private boolean anyNull;

    public ColumnCursor(ColumnReader reader, ColumnType type) {
        this.reader = reader;
        this.type = type;
        this.maxDefinition = reader.getDescriptor().getMaxDefinitionLevel();
    }

    /** The current row's value of an INT64 column that is not null (the key ts), without moving. */
    public long peekLong() {
        return reader.getLong();
    }

    /** Moves past the current row. */
    public void skipRow() {
        if (reader.getCurrentDefinitionLevel() == maxDefinition) {
            reader.skip();
        }
        reader.consume();
    }

    /** Starts a chunk of up to {@code capacity} rows. */
    public void startChunk(int capacity) {
        nulls = new boolean[capacity];
        anyNull = false;
        switch (type) {
            case INT64 -> longs = new long[capacity];
            case INT32 -> ints = new int[capacity];
            case DOUBLE -> doubles = new double[capacity];
            case BOOLEAN -> booleans = new boolean[capacity];
            case BINARY -> binaries = new byte[capacity][];
            case STRING -> texts = new String[capacity];
            default -> throw new IllegalStateException("unknown column type " + type);
        }
    }

    /** Reads the current row into chunk row {@code row} and moves on; returns the value's size in bytes. */
    public int readInto(int row) {
        if (reader.getCurrentDefinitionLevel() < maxDefinition) {
            nulls[row] = true;
            anyNull = true;
            reader.consume();
            return 0;
        }
        int size;
        switch (type) {
            case INT64 -> {
                longs[row] = reader.getLong();
                size = 8;
            }
            case INT32 -> {
                ints[row] = reader.getInteger();
                size = 4;
            }
            case DOUBLE -> {
                doubles[row] = reader.getDouble();
                size = 8;
            }
            case BOOLEAN -> {
                booleans[row] = reader.getBoolean();
                size = 1;
            }
            case BINARY -> {
                binaries[row] = reader.getBinary().getBytes();
                size = binaries[row].length;
            }
            case STRING -> {
                texts[row] = reader.getBinary().toStringUsingUTF8();
                size = texts[row].length();
            }
            default -> throw new IllegalStateException("unknown column type " + type);
        }
        reader.consume();
        return size;
    }

    /** The chunk's values as a vector. */
    public ColumnVector vector() {
        boolean[] mask = anyNull ? nulls : null;
        return switch (type) {
            case INT64 -> mask == null ? LongVector.of(longs) : LongVector.nullable(longs, mask);
            case INT32 -> mask == null ? IntVector.of(ints) : IntVector.nullable(ints, mask);
            case DOUBLE -> mask == null ? DoubleVector.of(doubles) : DoubleVector.nullable(doubles, mask);
            case BOOLEAN -> mask == null ? BooleanVector.of(booleans) : BooleanVector.nullable(booleans, mask);
            case BINARY -> BinaryVector.of(binaries);
            case STRING -> StringVector.of(texts);
        };
    }
}
