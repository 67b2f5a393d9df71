package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The adapter contract on the segment engine. */
class SegmentEngineContractTest extends StorageAdapterContract {
    @Override
    Engine engine() {
        return Engine.SEGMENT;
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
