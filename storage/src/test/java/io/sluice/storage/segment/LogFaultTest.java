package io.sluice.storage.segment;

import static io.sluice.storage.segment.TestLogs.small;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogOfflineException;
import io.sluice.storage.LogWriteException;
import io.sluice.storage.StorageCounter;

/** Faults injected through the segment channel seam: a failed write leaves the log as it was, a failed fsync takes it offline. */
class LogFaultTest {
    @TempDir
    Path dir;

    private final SegmentFaults faults = SegmentFaults.install();

    @AfterEach
    void removeFaults() {
        faults.close();
    }

    @Test
    void aFailedWriteChangesNothingAndTheNextCommitWritesTheBatch() throws Exception {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            TestLogs.appendValues(log, 10, 10);
            Path file = log.segments().last().logFile();
            long sizeBefore = Files.size(file);
            faults.faults().failWrites = true;
            for (int i = 10; i < 15; i++) {
                log.append(1000 + i, TestLogs.key(i), TestLogs.value(i), "topic/" + (i % 3));
            }
            assertThrows(LogWriteException.class, log::commit);
            assertThrows(LogWriteException.class, log::commit, "still failing, still online");
            assertTrue(faults.faults().writesFailed.get() >= 2);
            assertEquals(sizeBefore, Files.size(file), "the torn part of the batch was cut off again");
            assertEquals(10, log.highWatermark(), "nothing of the failed batch is readable");
            assertEquals(2, log.counters().get(StorageCounter.WRITE_FAILURES));
            assertEquals(0, log.counters().get(StorageCounter.IO_FAILURES));

            faults.faults().failWrites = false;
            assertEquals(15, log.commit());
            assertEquals(15, log.highWatermark());
            TestLogs.appendValues(log, 5, 5);
            TestLogs.assertValues(TestLogs.readAll(log), 0, 20);
        }
        try (SegmentLog reopened = TestLogs.open(dir, small())) {
            TestLogs.assertValues(TestLogs.readAll(reopened), 0, 20);
            assertEquals(0, reopened.recoveryReport().bytesTruncated(), "no torn bytes were left behind");
        }
    }

    @Test
    void aBatchThatFillsUpWhileWritesFailRefusesTheRecordThatNoLongerFits() throws Exception {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            faults.faults().failWrites = true;
            int appended = 0;
            LogWriteException refused = null;
            while (refused == null) {
                try {
                    log.append(1000 + appended, TestLogs.key(appended), TestLogs.value(appended), "topic/" + (appended % 3));
                    appended++;
                } catch (LogWriteException e) {
                    refused = e;
                }
            }
            assertEquals(appended, log.nextOffset(), "the refused record got no offset");
            faults.faults().failWrites = false;
            assertEquals(appended, log.commit());
            TestLogs.assertValues(TestLogs.readAll(log), 0, appended);
        }
    }

    @Test
    void aFailedFsyncTakesTheLogOfflineForGood() throws Exception {
        try (SegmentLog log = TestLogs.open(dir, small().toBuilder().flush(FlushPolicy.ALWAYS).build())) {
            TestLogs.appendValues(log, 10, 10);
            assertTrue(log.awaitDurable(9, 10, TimeUnit.SECONDS));
            faults.faults().failForce = true;
            log.append(2000, null, new byte[10], "t");
            log.commit();
            assertThrows(LogOfflineException.class, () -> log.awaitDurable(10, 10, TimeUnit.SECONDS));
            assertEquals(10, log.highWatermark(), "the record whose fsync failed never became durable");
            assertEquals(1, log.counters().get(StorageCounter.IO_FAILURES));
            faults.faults().failForce = false;
            assertThrows(LogOfflineException.class, () -> log.append(2001, null, new byte[10], "t"),
                    "after a failed fsync the page cache cannot be trusted: no retry");
            assertThrows(LogOfflineException.class, log::flush);
            assertFalse(log.isOpen());
        }
        try (SegmentLog reopened = TestLogs.open(dir, small())) {
            assertTrue(reopened.highWatermark() >= 10, "a restart opens the log again with its durable records");
        }
    }
}
