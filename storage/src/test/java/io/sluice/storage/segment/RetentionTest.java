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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.storage.LogScheduler;
import io.sluice.storage.LogSettings;
import io.sluice.testing.Eventually;

class RetentionTest {
    @TempDir
    Path dir;

    @Test
    void timeRetentionDeletesExpiredSegmentsButNeverTheActiveOne() {
        LogSettings settings = small().toBuilder().retentionMs(100).build();
        try (SegmentLog log = TestLogs.open(dir, settings)) {
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
        try (SegmentLog log = TestLogs.open(dir, settings)) {
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
        try (SegmentLog log = TestLogs.open(dir, settings)) {
            appendValues(log, 600, 10);
            log.enforceRetention(0);
            assertTrue(log.sizeInBytes() <= 10_000 + 4096, "size " + log.sizeInBytes());
            assertTrue(log.sizeInBytes() > 10_000 - 4096, "too much deleted: " + log.sizeInBytes());
        }
        try (SegmentLog log = TestLogs.open(dir, settings.toBuilder().retentionBytes(1).build())) {
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
        try (SegmentLog log = TestLogs.open(dir, settings)) {
            appendValues(log, 300, 10);
            log.enforceRetention(1_000_000);
            start = log.logStartOffset();
            assertTrue(start > 0);
            Eventually.await(() -> deletedFiles().isEmpty(), "deleted files are gone once no flush or reader holds them");
        }
        Files.delete(dir.resolve(LogLoader.CLEAN_SHUTDOWN_FILE));
        try (SegmentLog log = TestLogs.open(dir, settings)) {
            assertEquals(start, log.logStartOffset());
            assertValues(readAll(log), start, 300);
        }
    }

    /**
     * The cleaner thread pauses inside a retention pass, after it chose the segments to delete and
     * before it deletes them; close() is called meanwhile. close() must wait for the pass: if it went
     * ahead, it would release the segments the pass then releases again, and the pass would rename
     * files in a directory that is no longer locked.
     */
    @Test
    void closeWaitsForARetentionPassOnTheSharedCleanerThread() throws Exception {
        LogSettings settings = small().toBuilder().retentionMs(100).build();
        List<String> events = new CopyOnWriteArrayList<>();
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        long start;
        try (LogScheduler scheduler = new LogScheduler("race", 1, 10)) {
            SegmentLog log = SegmentLog.open(dir, "race", settings, scheduler);
            log.beforeSegmentsDeleted(() -> {
                if (paused.getCount() > 0) {
                    events.add("pass paused");
                    paused.countDown();
                    awaitQuietly(resume);
                    events.add("pass resumed");
                }
            });
            for (int i = 0; i < 400; i++) {
                log.append(System.currentTimeMillis(), TestLogs.key(i), TestLogs.value(i), "t"); // expire after 100 ms
                if (i % 10 == 9) {
                    log.commit();
                }
            }
            assertTrue(paused.await(30, TimeUnit.SECONDS), "the cleaner thread deletes expired segments");
            start = log.logStartOffset();
            Thread closer = new Thread(() -> {
                log.close();
                events.add("close returned");
            }, "closer");
            closer.start();
            Eventually.await(() -> !closer.isAlive() || closer.getState() == Thread.State.WAITING, "close() returns or waits");
            resume.countDown();
            closer.join();
        }
        assertEquals(List.of("pass paused", "pass resumed", "close returned"), events,
                "close() returned while a retention pass was still deleting segments");
        assertEquals(List.of(), CrashFiles.files(dir, Segment.DELETED_SUFFIX), "the deleted segments' files are gone");
        try (SegmentLog log = TestLogs.open(dir, settings.toBuilder().retentionMs(LogSettings.UNLIMITED).build())) {
            assertTrue(log.recoveryReport().cleanShutdown(), "the close was clean");
            assertEquals(start, log.logStartOffset());
            assertEquals(400, log.nextOffset());
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
