package io.sluice.examples.json;

import io.sluice.stream.ColumnType;

/**
 * The types a configured field may have, as written after the colon in {@code plugin.fields}
 * ({@code "speed:double"}), with the JSON values each accepts and the Parquet column it becomes.
 *
 * <pre>
 *  type      accepts                                          column
 *  double    any JSON number                                  DOUBLE
 *  long      a JSON integer that fits in 64 bits              INT64
 *  string    a JSON string                                    STRING (UTF-8)
 *  boolean   true or false                                    BOOLEAN
 * </pre>
 *
 * Anything else (an object, an array, a number in quotes, 1.5 for a long) is the wrong type.
 */
public enum FieldType {
    DOUBLE("double", ColumnType.DOUBLE),
    LONG("long", ColumnType.INT64),
    STRING("string", ColumnType.STRING),
    BOOLEAN("boolean", ColumnType.BOOLEAN);

    private final String label;
    private final ColumnType columnType;

    FieldType(String label, ColumnType columnType) {
        this.label = label;
        this.columnType = columnType;
    }

    /** The name used in settings. */
    public String label() {
        return label;
    }

    /** The stored column's type. */
    public ColumnType columnType() {
        return columnType;
    }

    /** The type of a settings label, or null. */
    public static FieldType of(String label) {
        for (FieldType type : values()) {
            if (type.label.equals(label)) {
                return type;
            }
        }
        return null;
    }

    /** Every label, for messages. */
    public static String labels() {
        StringBuilder sb = new StringBuilder();
        for (FieldType type : values()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(type.label);
        }
        return sb.toString();
    }
}
