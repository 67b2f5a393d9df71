package io.sluice.parquet;

/**
 * A published Parquet file of an exchange.
 *
 * @param location the file's full URI ({@code file:/...}, {@code hdfs://...})
 * @param name     the file name
 * @param seq      its sequence number: files in seq order are in key order
 * @param minTs    smallest ts in the file
 * @param maxTs    largest ts in the file
 * @param bytes    the file's length
 */
public record StoredFile(String location, String name, long seq, long minTs, long maxTs, long bytes) {

    /** Whether the file may hold keys in [start, end] (judged by name). */
    public boolean overlaps(long start, long end) {
        return maxTs >= start && minTs <= end;
    }
}
