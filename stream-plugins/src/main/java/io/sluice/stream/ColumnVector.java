package io.sluice.stream;

/**
 * The values of one column of a {@link ColumnBatch}, indexed by row. A vector is a view over
 * arrays it does not copy: whoever builds it must not change those arrays afterwards (a capture
 * batch's arrays are append-only, so a view of its filled prefix is stable).
 */
public abstract sealed class ColumnVector
        permits LongVector, IntVector, DoubleVector, BooleanVector, BinaryVector, StringVector {

    ColumnVector() {
    }

    /** The physical type of every value. */
    public abstract ColumnType type();

    /** How many rows the underlying arrays can address; a batch uses a window of them. */
    public abstract int length();

    /** Whether the row has no value. */
    public abstract boolean isNull(int row);

    /** Whether any row in [from, to) is null (for REQUIRED-field checks). */
    public boolean hasNulls(int from, int to) {
        for (int row = from; row < to; row++) {
            if (isNull(row)) {
                return true;
            }
        }
        return false;
    }
}
