package io.sluice.storage;

/**
 * Every counter the storage module keeps, with a stable metric name and a human label (the
 * metric carries a {@code log} label naming the log or shard). Names are unique (CounterNamesTest).
 */
public enum StorageCounter {
    RECORDS_APPENDED("storage_records_appended_total", "records appended"),
    BYTES_APPENDED("storage_bytes_appended_total", "batch bytes written to segment files"),
    BATCHES_WRITTEN("storage_batches_written_total", "record batches written"),
    FSYNCS("storage_fsyncs_total", "fsyncs of segment files"),
    SEGMENTS_ROLLED("storage_segments_rolled_total", "segments rolled"),
    SEGMENTS_DELETED("storage_segments_deleted_total", "segments deleted by retention or trimming"),
    RECOVERY_BYTES_TRUNCATED("storage_recovery_truncated_bytes_total", "bytes cut from torn or corrupt tails at open"),
    INDEXES_REBUILT("storage_indexes_rebuilt_total", "segment indexes rebuilt because missing, corrupt or unflushed"),
    CLEANER_RUNS("storage_cleaner_runs_total", "compactions completed"),
    CLEANER_RECORDS_REMOVED("storage_cleaner_records_removed_total", "records removed by compaction"),
    CORRUPT_BATCHES_READ("storage_corrupt_batches_read_total", "corrupt batches met by readers"),
    IO_FAILURES("storage_io_failures_total", "failed fsyncs and other I/O failures that take the log offline"),
    WRITE_FAILURES("storage_write_failures_total", "failed attempts to write a batch that changed nothing (a full disk); retried at the next commit"),
    LISTENER_FAILURES("storage_listener_failures_total", "durability listeners that threw");

    private final String metricName;
    private final String label;

    StorageCounter(String metricName, String label) {
        this.metricName = metricName;
        this.label = label;
    }

    public String metricName() {
        return metricName;
    }

    public String label() {
        return label;
    }
}
