package io.sluice.stream;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Rows in columns: a {@link Schema}, one {@link ColumnVector} per column, and the window of rows
 * [{@link #start()}, {@link #end()}) of those vectors that belong to the batch. Windows let a batch
 * be a zero-copy view of a capture batch or a slice of another batch. Immutable; safe to share.
 *
 * <p>Every batch a plugin encodes carries the key columns {@link Column#TS} and
 * {@link Column#OFFSET}, with rows in key order.
 */
public final class ColumnBatch {

    private final Schema schema;
    private final List<ColumnVector> vectors;
    private final int start;
    private final int end;

    /**
     * @throws IllegalArgumentException when the vectors do not match the schema in number or
     *                                  type, the window is outside a vector, or a required
     *                                  column has a null in the window
     */
    public ColumnBatch(Schema schema, List<ColumnVector> vectors, int start, int end) {
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("bad row window [" + start + ", " + end + ")");
        }
        if (vectors.size() != schema.size()) {
            throw new IllegalArgumentException(vectors.size() + " vectors for the " + schema.size() + " columns of " + schema);
        }
        for (int i = 0; i < vectors.size(); i++) {
            Column column = schema.column(i);
            ColumnVector vector = vectors.get(i);
            if (vector.type() != column.type()) {
                throw new IllegalArgumentException("column '" + column.name() + "' is " + column.type()
                        + " but its vector holds " + vector.type());
            }
            if (vector.length() < end) {
                throw new IllegalArgumentException("column '" + column.name() + "' has " + vector.length()
                        + " rows, fewer than the window end " + end);
            }
            if (!column.nullable() && vector.hasNulls(start, end)) {
                throw new IllegalArgumentException("required column '" + column.name() + "' has a null");
            }
        }
        this.schema = schema;
        this.vectors = List.copyOf(vectors);
        this.start = start;
        this.end = end;
    }

    /** A batch of rows [0, rows) of the vectors. */
    public static ColumnBatch of(Schema schema, List<ColumnVector> vectors, int rows) {
        return new ColumnBatch(schema, vectors, 0, rows);
    }

    public Schema schema() {
        return schema;
    }

    /** The first row index of the window. */
    public int start() {
        return start;
    }

    /** One past the last row index of the window. */
    public int end() {
        return end;
    }

    /** How many rows the batch has. */
    public int rows() {
        return end - start;
    }

    public ColumnVector vector(int column) {
        return vectors.get(column);
    }

    /** The named column's vector, or null when the batch has no such column. */
    public ColumnVector vector(String name) {
        int index = schema.indexOf(name);
        return index < 0 ? null : vectors.get(index);
    }

    /** The named INT64 column, or null when absent. */
    public LongVector longs(String name) {
        return typed(name, LongVector.class);
    }

    /** The named BINARY column, or null when absent. */
    public BinaryVector binaries(String name) {
        return typed(name, BinaryVector.class);
    }

    /** The named STRING column, or null when absent. */
    public StringVector strings(String name) {
        return typed(name, StringVector.class);
    }

    private <V extends ColumnVector> V typed(String name, Class<V> type) {
        ColumnVector vector = vector(name);
        if (vector == null) {
            return null;
        }
        if (!type.isInstance(vector)) {
            throw new IllegalArgumentException("column '" + name + "' holds " + vector.type() + ", not " + type.getSimpleName());
        }
        return type.cast(vector);
    }

    /** The rows [from, to) of this batch, as absolute row indexes of the same vectors. */
    public ColumnBatch slice(int from, int to) {
        if (from < start || to > end || to < from) {
            throw new IllegalArgumentException("slice [" + from + ", " + to + ") outside [" + start + ", " + end + ")");
        }
        return from == start && to == end ? this : new ColumnBatch(schema, vectors, from, to);
    }

    /** The named columns this batch has, in the order given; absent names are left out. */
    public ColumnBatch project(Collection<String> names) {
        Schema projected = schema.project(names);
        if (projected.equals(schema)) {
            return this;
        }
        List<ColumnVector> kept = new ArrayList<>(projected.size());
        for (Column column : projected.columns()) {
            kept.add(vectors.get(schema.indexOf(column.name())));
        }
        return new ColumnBatch(projected, kept, start, end);
    }

    /**
     * The bytes the window's values take uncompressed (fixed-width types by width, byte strings
     * by length, text by UTF-16 length as an estimate). The store sizes files and row groups by it.
     */
    public long estimatedBytes() {
        long total = 0;
        for (ColumnVector vector : vectors) {
            total += estimatedBytes(vector);
        }
        return total;
    }

    private long estimatedBytes(ColumnVector vector) {
        switch (vector.type()) {
            case INT64:
            case DOUBLE:
                return 8L * rows();
            case INT32:
                return 4L * rows();
            case BOOLEAN:
                return rows();
            case BINARY: {
                BinaryVector binary = (BinaryVector) vector;
                long sum = 4L * rows();
                for (int row = start; row < end; row++) {
                    byte[] value = binary.get(row);
                    sum += value == null ? 0 : value.length;
                }
                return sum;
            }
            case STRING: {
                StringVector strings = (StringVector) vector;
                long sum = 4L * rows();
                for (int row = start; row < end; row++) {
                    String value = strings.get(row);
                    sum += value == null ? 0 : value.length();
                }
                return sum;
            }
            default:
                throw new IllegalStateException("unknown column type " + vector.type());
        }
    }

    @Override
    public String toString() {
        return "ColumnBatch" + schema + " rows [" + start + ", " + end + ")";
    }
}
