package io.sluice.stream;

/** A column of byte strings over a {@code byte[][]}; a null element is a null row. */
public final class BinaryVector extends ColumnVector {

    private final byte[][] values;

    private BinaryVector(byte[][] values) {
        this.values = values;
    }

    /** A vector over the given arrays, which it neither copies nor changes. */
    public static BinaryVector of(byte[][] values) {
        return new BinaryVector(values);
    }

    /** The bytes of a row, or null. The caller must not change them. */
    public byte[] get(int row) {
        return values[row];
    }

    @Override
    public ColumnType type() {
        return ColumnType.BINARY;
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
