package io.sluice.storage.segment;

import static io.sluice.storage.segment.TestLogs.appendValues;
import static io.sluice.storage.segment.TestLogs.assertValues;
import static io.sluice.storage.segment.TestLogs.readAll;
import static io.sluice.storage.segment.TestLogs.small;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.storage.LogSettings;

class RetentionTest {
    @TempDir
    Path dir;

    @Test
    void timeRetentionDeletesExpiredSegmentsButNeverTheActiveOne() {
        LogSettings settings = small().toBuilder().retentionMs(100).build();
        try (Log log = TestLogs.open(dir, settings)) {
            appendValues(log, 400, 10); // timestamps 1000..1399
            Segment active = log.segments().last();
            int deleted = log.enforceRetention(1_000_000);
            assertTrue(deleted > 0);
            assertEquals(1, log.segmentCount(), "only the active segment is left");
            assertEquals(active, log.segments().last());
            assertEquals(active.baseOffset(), log.logStartOffset());
            assertValues(readAll(log), active.baseOffset(), 400);
            assertEquals(0, log.enforceRetention(Long.MAX_VALUE / 2), "the active segment is never deleted");
        }
    }

    @Test
    void timeRetentionKeepsSegmentsWithARecentRecord() {
        LogSettings settings = small().toBuilder().retentionMs(100).build();
        try (Log log = TestLogs.open(dir, settings)) {
            appendValues(log, 400, 10);
            int before = log.segmentCount();
            Segment second = log.segments().higher(log.segments().first().baseOffset());
            long now = second.maxTimestamp() + 100; // the first segment is older than 100 ms, the second is not
            assertEquals(1, log.enforceRetention(now));
            assertEquals(before - 1, log.segmentCount());
            assertEquals(second.baseOffset(), log.logStartOffset());
        }
    }

    @Test
    void sizeRetentionKeepsTheLogUnderTheLimitButNeverDeletesTheActiveSegment() {
        LogSettings settings = small().toBuilder().retentionBytes(10_000).build();
        try (Log log = TestLogs.open(dir, settings)) {
            appendValues(log, 600, 10);
            log.enforceRetention(0);
            assertTrue(log.sizeInBytes() <= 10_000 + 4096, "size " + log.sizeInBytes());
            assertTrue(log.sizeInBytes() > 10_000 - 4096, "too much deleted: " + log.sizeInBytes());
        }
        try (Log log = TestLogs.open(dir, settings.toBuilder().retentionBytes(1).build())) {
            log.enforceRetention(0);
            assertEquals(1, log.segmentCount());
        }
    }

    private List<Path> deletedFiles() {
        try {
            return CrashFiles.files(dir, Segment.DELETED_SUFFIX);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void retentionMovesTheLogStartOffsetDurably() throws Exception {
        LogSettings settings = small().toBuilder().retentionMs(100).build();
        long start;
        try (Log log = TestLogs.open(dir, settings)) {
            appendValues(log, 300, 10);
            log.enforceRetention(1_000_000);
            start = log.logStartOffset();
            assertTrue(start > 0);
            TestLogs.awaitTrue("deleted files are gone once no flush or reader holds them",
                    () -> deletedFiles().isEmpty());
        }
        Files.delete(dir.resolve(LogLoader.CLEAN_SHUTDOWN_FILE));
        try (Log log = TestLogs.open(dir, settings)) {
            assertEquals(start, log.logStartOffset());
            assertValues(readAll(log), start, 300);
        }
    }
}
