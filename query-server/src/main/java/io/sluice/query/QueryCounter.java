package io.sluice.query;

/**
 * The counters of one exchange's query server, with stable metric names (exported with an
 * {@code exchange} label). Names are unique (CounterNamesTest). Written by the server's thread
 * only, readable from any thread.
 */
public enum QueryCounter {
    REQUESTS("query_requests_total", "requests received"),
    REPLIES("query_replies_total", "data replies completed with EOF"),
    BAD_COMMANDS("query_bad_commands_total", "requests refused as invalid commands (ERR BAD_*)"),
    RATE_LIMITED("query_rate_limited_total", "requests refused over limit_frequency (ERR RATE_LIMITED)"),
    READ_FAILURES("query_read_failures_total", "replies ended by a failed read (ERR READ_FAILED)"),
    TOO_LARGE("query_too_large_total", "sync replies refused over max_sync_bytes (ERR TOO_LARGE)"),
    ABANDONED("query_replies_abandoned_total", "replies cut short because the client left or stopped reading for send_timeout"),
    FRAMES("query_frames_total", "data frames sent"),
    BYTES("query_bytes_total", "bytes of data frames sent"),
    RECORDS("query_records_total", "decoded records sent"),
    CONNECTIONS("query_connections_total", "client connections accepted"),
    DISCONNECTIONS("query_disconnections_total", "client connections closed");

    private final String metricName;
    private final String help;

    QueryCounter(String metricName, String help) {
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
