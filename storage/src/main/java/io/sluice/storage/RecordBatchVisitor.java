package io.sluice.storage;

import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A visitor of a read by offset ({@link StorageAdapter#readByOffset(String, long, int, int, Consumer)})
 * that also takes whole stored batches whose records are already Kafka v2 records, so that a Kafka
 * fetch sends them with a new batch header and touches no record. The segment engine hands out its
 * batches written in that layout this way and every other record one by one ({@link #accept}); the
 * other engines only the latter. One thread.
 */
public interface RecordBatchVisitor extends Consumer<RecordFlyweight> {

    /**
     * One stored batch, whole: {@code records} (position to limit, valid only during the call) holds
     * {@code recordCount} records in Kafka's v2 record layout, whose offset and timestamp deltas are
     * relative to {@code baseOffset} and {@code firstTimestamp}. Offsets may have gaps (compaction),
     * and the first records may lie before the offset the read started from, as in a Kafka broker's
     * answer: Kafka consumers skip them. {@code recordsCrc} is the CRC-32C of {@code records}, checked
     * as part of the stored batch's: a Kafka batch's CRC follows from it ({@link Crc32c#combine}).
     */
    void acceptBatch(long baseOffset, int lastOffsetDelta, long firstTimestamp, long maxTimestamp, int recordCount,
                     ByteBuffer records, int recordsCrc);
}
