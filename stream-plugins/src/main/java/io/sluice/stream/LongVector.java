package io.sluice.stream;

/** A column of INT64 values over a {@code long[]}, with an optional null mask. */
public final class LongVector extends ColumnVector {

    private final long[] values;
    private final boolean[] nulls;

    private LongVector(long[] values, boolean[] nulls) {
        if (nulls != null && nulls.length < values.length) {
            throw new IllegalArgumentException("null mask of " + nulls.length + " rows is shorter than " + values.length + " values");
        }
        this.values = values;
        this.nulls = nulls;
    }

    /** A vector without nulls. */
    public static LongVector of(long[] values) {
        return new LongVector(values, null);
    }

    /** A vector whose row r is null where {@code nulls[r]} is true. */
    public static LongVector nullable(long[] values, boolean[] nulls) {
        return new LongVector(values, nulls);
    }

    /** The value of a non-null row. */
    public long get(int row) {
        return values[row];
    }

    @Override
    public ColumnType type() {
        return ColumnType.INT64;
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
