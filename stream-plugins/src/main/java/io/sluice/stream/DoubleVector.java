package io.sluice.stream;

/** A column of DOUBLE values over a {@code double[]}, with an optional null mask. */
public final class DoubleVector extends ColumnVector {

    private final double[] values;
    private final boolean[] nulls;

    private DoubleVector(double[] values, boolean[] nulls) {
        if (nulls != null && nulls.length < values.length) {
            throw new IllegalArgumentException("null mask of " + nulls.length + " rows is shorter than " + values.length + " values");
        }
        this.values = values;
        this.nulls = nulls;
    }

    /** A vector without nulls. */
    public static DoubleVector of(double[] values) {
        return new DoubleVector(values, null);
    }

    /** A vector whose row r is null where {@code nulls[r]} is true. */
    public static DoubleVector nullable(double[] values, boolean[] nulls) {
        return new DoubleVector(values, nulls);
    }

    /** The value of a non-null row. */
    public double get(int row) {
        return values[row];
    }

    @Override
    public ColumnType type() {
        return ColumnType.DOUBLE;
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
