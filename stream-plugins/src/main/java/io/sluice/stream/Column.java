package io.sluice.stream;

import java.util.Objects;

/**
 * One named, typed column of a {@link Schema}. A nullable column may hold nulls; a required one
 * never does, and the store writes it as a Parquet REQUIRED field.
 *
 * @param name     the column name: 1 to 255 characters, letters, digits, {@code _} and {@code -}
 * @param type     the physical type
 * @param nullable whether rows may have no value
 */
public record Column(String name, ColumnType type, boolean nullable) {

    /** The column every encoded batch carries: the capture timestamp, epoch milliseconds. */
    public static final Column TS = new Column("ts", ColumnType.INT64, false);
    /** The column every encoded batch carries: the capture offset, unique per exchange. */
    public static final Column OFFSET = new Column("offset", ColumnType.INT64, false);

    public Column {
        Objects.requireNonNull(type, "type");
        if (name == null || name.isEmpty() || name.length() > 255) {
            throw new IllegalArgumentException("column name must have 1 to 255 characters, was " + quoted(name));
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            if (!ok) {
                throw new IllegalArgumentException("column name " + quoted(name) + " has '" + c + "' at index " + i
                        + "; allowed are letters, digits, '_' and '-'");
            }
        }
    }

    /** A required (never null) column. */
    public static Column required(String name, ColumnType type) {
        return new Column(name, type, false);
    }

    /** A nullable column. */
    public static Column nullable(String name, ColumnType type) {
        return new Column(name, type, true);
    }

    private static String quoted(String s) {
        return s == null ? "null" : "'" + s + "'";
    }
}
