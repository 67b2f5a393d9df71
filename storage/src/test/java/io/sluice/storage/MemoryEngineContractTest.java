package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The adapter contract on the memory engine. */
class MemoryEngineContractTest extends StorageAdapterContract {
    @Override
    ShardSettings settings() {
        return ShardSettings.memory(LogSettings.builder().retentionMs(LogSettings.UNLIMITED).build());
    }

    @Test
    void aMemoryShardComesBackEmptyAfterReopen() {
        adapter.write("sensors_0", record(null, "v", 1));
        reopen();
        assertEquals(0, adapter.endOffset("sensors_0"));
    }
}
