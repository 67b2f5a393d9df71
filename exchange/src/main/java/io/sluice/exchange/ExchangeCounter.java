package io.sluice.exchange;

/**
 * The counters an exchange keeps besides its ring's and its store's, with stable metric names
 * (carrying an {@code exchange} label where exported). Names are unique (CounterNamesTest).
 */
public enum ExchangeCounter {
    QUERIES("exchange_queries_total", "queries started"),
    QUERY_ERRORS("exchange_query_errors_total", "queries that failed while reading"),
    BATCHES_RECOVERED("exchange_batches_recovered_total", "spilled batches found at open and written to Parquet"),
    RECORDS_RECOVERED("exchange_records_recovered_total", "records of spilled batches found at open"),
    BATCHES_SAVED("exchange_batches_saved_total", "batches the writer could not write at close, spilled to disk for the next start"),
    RECORDS_LOST("exchange_records_lost_total", "records that could be neither written nor saved (plugin failure, unusable disk)"),
    DELETE_FAILURES("exchange_delete_failures_total", "retired files or written spill files that could not be deleted"),
    WAL_BATCHES_REPLAYED("exchange_wal_batches_replayed_total", "batches of write-ahead log records found at open that were not in Parquet yet, written from the log"),
    WAL_RECORDS_REPLAYED("exchange_wal_records_replayed_total", "records of those batches"),
    WAL_FAILURES("exchange_wal_failures_total", "write-ahead log failures: the log went offline (a failed fsync) and the exchange refuses messages until restarted"),
    WAL_WRITE_FAILURES("exchange_wal_write_failures_total", "times the write-ahead log became unwritable (a full disk): the exchange refuses messages until a write succeeds again"),
    WAL_RECEIPTS_REFUSED("exchange_wal_receipts_refused_total", "acknowledgements refused because their message was not stored (refused by the ring, an unwritable or offline log, a closing exchange): the broker does not acknowledge it as stored"),
    REJECTED_WRITER_DEAD("exchange_rejected_writer_dead_total", "messages refused because the Parquet writer thread died and could not be restarted");

    private final String metricName;
    private final String help;

    ExchangeCounter(String metricName, String help) {
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
