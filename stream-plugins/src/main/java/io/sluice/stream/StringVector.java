package io.sluice.stream;

/** A column of text over a {@code String[]}; a null element is a null row. */
public final class StringVector extends ColumnVector {

    private final String[] values;

    private StringVector(String[] values) {
        this.values = values;
    }

    /** A vector over the given array, which it neither copies nor changes. */
    public static StringVector of(String[] values) {
        return new StringVector(values);
    }

    /** The text of a row, or null. */
    public String get(int row) {
        return values[row];
    }

    @Override
    public ColumnType type() {
        return ColumnType.STRING;
    }

    @Override
    public int length() {
        return values.length;
    }

    @Override
    public boolean isNull(int row) {
        return values[row] == null;
    }
}
