package io.sluice.storage.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogSettings;
import io.sluice.storage.LogWriteException;
import io.sluice.testing.SmallDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A full disk under the mapped indexes: a batch small enough to go into a page the log file already
 * has still needs a page for its index entry. Writing that entry through the mapping into a hole of
 * the sparse index file would fault (SIGBUS, an {@link InternalError} on the writing thread); the
 * write must fail like any other on a full disk instead, change nothing, and succeed once there is
 * room again. Mounting needs root (and CAP_SYS_ADMIN); elsewhere the test is skipped, saying so.
 */
class IndexDiskFullTest {
    @RegisterExtension
    final SmallDisk disk = SmallDisk.ofSize("1m");

    private static LogSettings everyBatchIndexed() {
        return LogSettings.builder()
                .segmentBytes(64 * 1024)
                .indexIntervalBytes(0)
                .segmentIndexBytes(64 * 1024)
                .flush(FlushPolicy.NONE)
                .retentionMs(LogSettings.UNLIMITED)
                .build();
    }

    @Test
    void anIndexEntryOnAFullDiskFailsTheWriteAndTheLogWritesItOnceThereIsRoom() throws Exception {
        try (SegmentLog log = TestLogs.open(disk.path(), everyBatchIndexed())) {
            TestLogs.appendValues(log, 1, 1); // the first batch gets no index entry, and leaves its page room
            disk.fill();
            log.append(1001, TestLogs.key(1), TestLogs.value(1), "topic/1");
            assertThrows(LogWriteException.class, log::commit, "the index entry has no room");
            assertEquals(1, log.highWatermark(), "nothing of the failed batch is readable");

            disk.free();
            assertEquals(2, log.commit());
            TestLogs.appendValues(log, 3, 1);
            TestLogs.assertValues(TestLogs.readAll(log), 0, 5);
        }
        try (SegmentLog reopened = TestLogs.open(disk.path(), everyBatchIndexed())) {
            TestLogs.assertValues(TestLogs.readAll(reopened), 0, 5);
            assertEquals(0, reopened.recoveryReport().bytesTruncated(), "no torn bytes were left behind");
        }
    }
}
