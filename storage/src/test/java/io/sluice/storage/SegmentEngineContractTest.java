package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The adapter contract on the segment engine. */
class SegmentEngineContractTest extends StorageAdapterContract {
    @Override
    ShardSettings settings() {
        return ShardSettings.segment(LogSettings.builder().segmentBytes(64 * 1024).retentionMs(LogSettings.UNLIMITED).build());
    }

    @Test
    void recordsSurviveReopen() {
        adapter.batchWrite("sensors_0", List.of(record("a", "1", 1), record("b", "2", 2)));
        reopen();
        assertEquals(2, adapter.endOffset("sensors_0"));
        assertEquals(record("b", "2", 2), adapter.readByOffset("sensors_0", 1, 1, 100).get(0).record());
        assertEquals(2, adapter.write("sensors_0", record("c", "3", 3)));
    }

    @Test
    void underAlwaysAWriteReturnsOnlyOnceFsynced() {
        adapter.createShard("durable_0", ShardSettings.segment(LogSettings.builder().flush(FlushPolicy.ALWAYS).build()));
        long offset = adapter.write("durable_0", record(null, "v", 1));
        io.sluice.storage.segment.SegmentShard shard = (io.sluice.storage.segment.SegmentShard)
                ((io.sluice.storage.internal.LocalStorageAdapter) adapter).shardFor("durable_0");
        assertEquals(offset + 1, shard.log().flushedOffset());
    }
}
