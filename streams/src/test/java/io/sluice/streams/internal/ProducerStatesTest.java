package io.sluice.streams.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.storage.LogSettings;
import io.sluice.storage.Record;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageAdapter;
import io.sluice.streams.AppendResult.Status;
import io.sluice.streams.ProducerBatch;

class ProducerStatesTest {
    @TempDir
    Path dir;

    private static Record tagged(ProducerBatch batch) {
        return new Record(null, "v".getBytes(StandardCharsets.UTF_8), 10, List.of(ProducerStates.tag(batch)));
    }

    @Test
    void withoutASnapshotTheStateIsRebuiltFromTheTagsInThePartition() {
        try (StorageAdapter adapter = StorageAdapter.open(dir)) {
            adapter.createShard("s_0", ShardSettings.segment(LogSettings.defaults()));
            adapter.write("s_0", Record.of(null, "a".getBytes(StandardCharsets.UTF_8), 1));
            ProducerBatch first = new ProducerBatch(42, (short) 3, 0, 1);
            adapter.write("s_0", tagged(first));
            adapter.write("s_0", Record.of(null, "x".getBytes(StandardCharsets.UTF_8), 1));
            adapter.write("s_0", Record.of(null, "y".getBytes(StandardCharsets.UTF_8), 1));
            ProducerBatch second = new ProducerBatch(42, (short) 3, 1, 2);
            adapter.write("s_0", tagged(second));

            ProducerStates states = new ProducerStates();
            assertEquals(-1, states.rebuild(adapter, "s_0", null), "a snapshot is due");
            ProducerStates.Verdict retry = states.admit(second, 20);
            assertEquals(Status.DUPLICATE, retry.status());
            assertEquals(3, retry.batch().firstOffset);
            assertEquals(1, states.admit(first, 20).batch().firstOffset);
            assertEquals(Status.APPENDED, states.admit(new ProducerBatch(42, (short) 3, 3, 1), 20).status());
        }
    }

    @Test
    void aSnapshotRestoresTheStateItCoversAndTagsAfterItAreReplayed() {
        try (StorageAdapter adapter = StorageAdapter.open(dir)) {
            adapter.createShard("s_0", ShardSettings.segment(LogSettings.defaults()));
            ProducerStates before = new ProducerStates();
            ProducerBatch first = new ProducerBatch(7, (short) 0, 0, 1);
            before.admit(first, 5).batch().firstOffset = adapter.write("s_0", tagged(first));
            byte[] snapshot = before.snapshot(1);
            ProducerBatch second = new ProducerBatch(7, (short) 0, 1, 1);
            adapter.write("s_0", tagged(second));

            ProducerStates after = new ProducerStates();
            assertEquals(-1, after.rebuild(adapter, "s_0", snapshot));
            assertEquals(0, after.admit(first, 5).batch().firstOffset);
            assertEquals(1, after.admit(second, 5).batch().firstOffset);
            assertEquals(2, after.rebuild(adapter, "s_0", after.snapshot(2)), "a snapshot of the end is current");
        }
    }

    @Test
    void aProducerIdleForDaysIsForgottenAndAnUnknownProducerMayStartAnywhere() {
        ProducerStates states = new ProducerStates();
        states.admit(new ProducerBatch(1, (short) 0, 0, 1), 0);
        states.expire(ProducerStates.EXPIRY_DAYS * 24 * 60 * 60 * 1000 + 1);
        assertEquals(0, states.size());
        assertEquals(Status.APPENDED, states.admit(new ProducerBatch(1, (short) 0, 500, 1), 0).status());
        assertNull(states.admit(new ProducerBatch(1, (short) 0, 400, 1), 0).batch());
    }
}
