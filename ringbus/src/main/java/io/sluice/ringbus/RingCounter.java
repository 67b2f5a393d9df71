package io.sluice.ringbus;

/**
 * Every counter a ring keeps, with a stable metric name (carrying an {@code exchange} label where
 * exported) and what it counts. Names are unique (CounterNamesTest).
 */
public enum RingCounter {
    RECEIVED("ring_received_total", "messages taken into a batch and given a key"),
    REJECTED_RING_FULL("ring_rejected_ring_full_total", "offers refused because every ring slot was taken"),
    REJECTED_BATCH_FULL("ring_rejected_batch_full_total", "messages refused because the batch was full and could not be handed up (fullOp 0 NONE)"),
    REJECTED_CLOSED("ring_rejected_closed_total", "offers refused because the exchange was closing"),
    REJECTED_UNLOGGED("ring_rejected_unlogged_total", "messages refused because the write-ahead log could not take them (it failed, or the record exceeds a segment)"),
    DROPPED("ring_dropped_total", "messages discarded with a full batch (fullOp 1 DROP)"),
    SPILLED("ring_spilled_total", "messages spilled to local disk or left in the write-ahead log (fullOp 3 FILE)"),
    SPILL_FAILURES("ring_spill_failures_total", "batches that could not be spilled and were handed up with back-pressure instead"),
    HANDLER_ERRORS("ring_handler_errors_total", "messages lost to an unexpected error on the ring thread"),
    BATCHES("ring_batches_total", "batches handed up or spilled");

    private final String metricName;
    private final String help;

    RingCounter(String metricName, String help) {
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

    /** Whether the counter counts messages that were not captured. */
    public boolean isLoss() {
        return this == REJECTED_RING_FULL || this == REJECTED_BATCH_FULL || this == REJECTED_CLOSED
                || this == REJECTED_UNLOGGED || this == DROPPED || this == HANDLER_ERRORS;
    }
}
