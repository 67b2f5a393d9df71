package io.sluice.streams;

/**
 * Every counter a stream keeps, with a stable metric name and a human label; the metric carries a
 * {@code stream} label naming the stream.
 */
public enum StreamCounter {
    RECORDS_CAPTURED("stream_records_captured_total", "MQTT messages appended"),
    CAPTURES_REFUSED("stream_captures_refused_total", "MQTT messages not appended because the stream's queue was full"),
    RECORDS_PRODUCED("stream_records_produced_total", "records appended by Kafka producers"),
    DUPLICATE_BATCHES("stream_duplicate_batches_total", "retried producer batches answered with their first offset"),
    SEQUENCE_REFUSALS("stream_sequence_refusals_total", "producer batches refused for a sequence gap or an old epoch"),
    APPEND_FAILURES("stream_append_failures_total", "appends the storage refused (each logged)");

    private final String metricName;
    private final String label;

    StreamCounter(String metricName, String label) {
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
