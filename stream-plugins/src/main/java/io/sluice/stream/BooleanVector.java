package io.sluice.stream;

/** A column of BOOLEAN values over a {@code boolean[]}, with an optional null mask. */
public final class BooleanVector extends ColumnVector {

    private final boolean[] values;
    private final boolean[] nulls;

    private BooleanVector(boolean[] values, boolean[] nulls) {
        if (nulls != null && nulls.length < values.length) {
            throw new IllegalArgumentException("null mask of " + nulls.length + " rows is shorter than " + values.length + " values");
        }
        this.values = values;
        this.nulls = nulls;
    }

    /** A vector without nulls. */
    public static BooleanVector of(boolean[] values) {
        return new BooleanVector(values, null);
    }

    /** A vector whose row r is null where {@code nulls[r]} is true. */
    public static BooleanVector nullable(boolean[] values, boolean[] nulls) {
        return new BooleanVector(values, nulls);
    }

    /** The value of a non-null row. */
    public boolean get(int row) {
        return values[row];
    }

    @Override
    public ColumnType type() {
        return ColumnType.BOOLEAN;
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
