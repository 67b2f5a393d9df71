package io.sluice.streams;

/**
 * Told after records were appended to a stream partition and became readable, so that readers
 * waiting for new data (long-polling Kafka fetches) wake up. Called on the stream's appender
 * thread: must be quick and must not block.
 */
@FunctionalInterface
public interface AppendListener {
    /** {@code partition} of {@code stream} now ends at {@code endOffset}. */
    void appended(Stream stream, int partition, long endOffset);
}
