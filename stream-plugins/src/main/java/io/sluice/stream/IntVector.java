package io.sluice.stream;

/** A column of INT32 values over a {@code int[]}, with an optional null mask. */
public final class IntVector extends ColumnVector {

    private final int[] values;
    private final boolean[] nulls;

    private IntVector(int[] values, boolean[] nulls) {
        if (nulls != null && nulls.length < values.length) {
            throw new IllegalArgumentException("null mask of " + nulls.length + " rows is shorter than " + values.length + " values");
        }
        this.values = values;
        this.nulls = nulls;
    }

    /** A vector without nulls. */
    public static IntVector of(int[] values) {
        return new IntVector(values, null);
    }

    /** A vector whose row r is null where {@code nulls[r]} is true. */
    public static IntVector nullable(int[] values, boolean[] nulls) {
        return new IntVector(values, nulls);
    }

    /** The value of a non-null row. */
    public int get(int row) {
        return values[row];
    }

    @Override
    public ColumnType type() {
        return ColumnType.INT32;
    }

    @Override
    public int length() {
        return values.length;
    }

    @Override
    public boolean isNull(int row) {
        return nulls != null && nulls[row];
    }

    @Override
    public boolean hasNulls(int from, int to) {
        return nulls != null && super.hasNulls(from, to);
    }
}
