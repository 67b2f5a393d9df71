package io.sluice.storage;

/**
 * Told each time a log's high watermark advances, so a writer can release acknowledgements
 * (MQTT PUBACKs) without blocking. Called on the thread that made the data durable: the writer
 * thread for {@code none} and {@code interval}, a flusher thread or a group-commit leader for
 * {@code always}. Must be quick and must not block or call back into the log's writer methods.
 */
@FunctionalInterface
public interface DurabilityListener {
    /** Every offset below {@code highWatermark} is now durable under the flush policy and readable. */
    void onDurable(long highWatermark);
}
