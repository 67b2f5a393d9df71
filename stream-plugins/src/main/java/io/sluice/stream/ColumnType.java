package io.sluice.stream;

/**
 * The physical type of one column of an encoded batch. The set is deliberately small and maps
 * one to one onto Parquet primitive types, so a plugin's columns land in files that DuckDB,
 * Spark and pandas read without conversion.
 */
public enum ColumnType {
    /** 64-bit signed integer; Parquet INT64. */
    INT64,
    /** 32-bit signed integer; Parquet INT32. */
    INT32,
    /** IEEE 754 double; Parquet DOUBLE. */
    DOUBLE,
    /** Parquet BOOLEAN. */
    BOOLEAN,
    /** Opaque bytes; Parquet BYTE_ARRAY. */
    BINARY,
    /** UTF-8 text; Parquet BYTE_ARRAY annotated STRING. */
    STRING
}
