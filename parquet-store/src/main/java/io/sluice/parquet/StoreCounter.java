package io.sluice.parquet;

/**
 * Every counter a Parquet store keeps, with a stable metric name (carrying an {@code exchange}
 * label where exported) and what it counts. Names are unique (CounterNamesTest).
 */
public enum StoreCounter {
    FILES_WRITTEN("parquet_files_written_total", "Parquet files published"),
    BATCHES_WRITTEN("parquet_batches_written_total", "batches written into published files"),
    RECORDS_WRITTEN("parquet_records_written_total", "records written into published files"),
    RECORDS_APPENDED("parquet_records_appended_total", "records written into row groups, of published files or the open one"),
    BYTES_WRITTEN("parquet_bytes_written_total", "bytes of published files"),
    WRITE_ERRORS("parquet_write_errors_total", "failed attempts to write a file (retried)"),
    FILES_DELETED("parquet_files_deleted_total", "files deleted by retention (file_count, retention)"),
    BYTES_DELETED("parquet_bytes_deleted_total", "bytes of files deleted by retention"),
    FILES_RECOVERED("parquet_files_recovered_total", "open files a crash left, published at start-up from their row-group journal"),
    TEMP_FILES_REMOVED("parquet_temp_files_removed_total", "half-written files of a crash removed at start-up"),
    CORRUPT_FILES("parquet_corrupt_files_total", "published files found unreadable at start-up and renamed aside"),
    BATCHES_DISCARDED("parquet_batches_discarded_total", "batches the plugin failed to encode, not written"),
    RECORDS_DISCARDED("parquet_records_discarded_total", "records of batches the plugin failed to encode"),
    BATCHES_UNWRITTEN("parquet_batches_unwritten_total", "batches still unwritten when the store closed after failed retries or with a dead writer"),
    WRITER_DEATHS("parquet_writer_deaths_total", "times the writer thread died on an unexpected error (its batches are queued again; it is restarted unless it died 3 times in a row)");

    private final String metricName;
    private final String help;

    StoreCounter(String metricName, String help) {
        this.metricName = metricName;
        this.help = help;
    }

    /** The metric name, stable across releases. */
    public String metricName() {
        return metricName;
    }

    /** What the counter counts. */
    public String help() {
        return help;
    }
}
