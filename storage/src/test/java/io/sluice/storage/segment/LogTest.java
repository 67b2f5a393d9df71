package io.sluice.storage.segment;

import static io.sluice.storage.segment.TestLogs.appendValues;
import static io.sluice.storage.segment.TestLogs.assertValues;
import static io.sluice.storage.segment.TestLogs.readAll;
import static io.sluice.storage.segment.TestLogs.small;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.LogCursor;
import io.sluice.storage.OffsetOutOfRangeException;
import io.sluice.storage.Record;
import io.sluice.storage.RecordTooLargeException;
import io.sluice.storage.StorageException;
import io.sluice.storage.StoredRecord;

class LogTest {
    @TempDir
    Path dir;

    @Test
    void appendedRecordsStayInvisibleUntilCommitted() {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            long first = log.append(1, null, "a".getBytes());
            long second = log.append(2, null, "b".getBytes());
            assertEquals(0, first);
            assertEquals(1, second);
            assertEquals(0, log.highWatermark());
            assertEquals(List.of(), log.read(0, 10, 1 << 20));
            assertEquals(2, log.commit());
            assertEquals(2, log.highWatermark());
            assertEquals(2, log.read(0, 10, 1 << 20).size());
        }
    }

    @Test
    void readIsBoundedByMaxRecordsAndMaxBytesButAlwaysMakesProgress() {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 100, 7);
            assertValues(log.read(10, 5, Integer.MAX_VALUE), 10, 15);
            List<StoredRecord> bytesBound = log.read(0, 100, 60);
            assertTrue(bytesBound.size() >= 1 && bytesBound.size() < 10, "got " + bytesBound.size());
            assertValues(log.read(42, 1, 1), 42, 43);
            assertEquals(List.of(), log.read(100, 10, 100));
        }
    }

    @Test
    void readOutsideTheLogNamesTheLogTheOffsetAndTheRange() {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 10, 10);
            OffsetOutOfRangeException e = assertThrows(OffsetOutOfRangeException.class, () -> log.read(11, 1, 100));
            assertEquals(11, e.offset());
            assertTrue(e.getMessage().contains(log.name()) && e.getMessage().contains("0 to 10"), e.getMessage());
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(-1, 1, 100));
        }
    }

    @Test
    void segmentsRollBySizeAndRecordsReadBackAcrossThem() {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 500, 10);
            assertTrue(log.segmentCount() > 5, "segments: " + log.segmentCount());
            for (Segment segment : log.segments().all()) {
                assertTrue(segment.size() <= 4096, segment + " is larger than segment_bytes");
                assertTrue(Files.exists(segment.logFile()));
            }
            assertValues(readAll(log), 0, 500);
            assertValues(log.read(333, 10, Integer.MAX_VALUE), 333, 343);
        }
    }

    @Test
    void segmentsRollWhenTheirRecordsSpanSegmentMs() {
        try (SegmentLog log = TestLogs.open(dir, small().toBuilder().segmentMs(1000).build())) {
            for (int i = 0; i < 6; i++) {
                log.append(10_000 + i * 600L, null, "x".getBytes());
                log.commit();
            }
            // timestamps 10000, 10600 | 11200, 11800 | 12400, 13000: a roll whenever the span exceeds 1000 ms
            assertEquals(3, log.segmentCount());
        }
    }

    @Test
    void offsetsContinueAfterReopen() {
        LogSettingsHolder holder = new LogSettingsHolder();
        try (SegmentLog log = TestLogs.open(dir, holder.settings)) {
            appendValues(log, 120, 10);
        }
        try (SegmentLog log = TestLogs.open(dir, holder.settings)) {
            assertEquals(120, log.nextOffset());
            assertEquals(120, log.highWatermark());
            appendValues(log, 30, 10);
            assertValues(readAll(log), 0, 150);
        }
    }

    private static final class LogSettingsHolder {
        final io.sluice.storage.LogSettings settings = small();
    }

    @Test
    void offsetForTimestampIsExactEvenWhenTimestampsAreUnordered() {
        Random random = new Random(7);
        List<Long> timestamps = new ArrayList<>();
        try (SegmentLog log = TestLogs.open(dir, small().toBuilder().indexIntervalBytes(64).build())) {
            for (int i = 0; i < 800; i++) {
                long ts = 10_000 + i * 3L + random.nextInt(200) - 100;
                timestamps.add(ts);
                log.append(ts, null, new byte[random.nextInt(40)]);
                if (random.nextInt(5) == 0) {
                    log.commit();
                }
            }
            log.commit();
            assertTrue(log.segmentCount() > 3);
            for (long target = 9_850; target <= 12_600; target += 7) {
                long expected = timestamps.size();
                for (int i = 0; i < timestamps.size(); i++) {
                    if (timestamps.get(i) >= target) {
                        expected = i;
                        break;
                    }
                }
                assertEquals(expected, log.offsetForTimestamp(target), "first offset with timestamp >= " + target);
            }
            assertEquals(0, log.offsetForTimestamp(SegmentLog.EARLIEST_TIMESTAMP));
            assertEquals(800, log.offsetForTimestamp(SegmentLog.LATEST_TIMESTAMP));
            assertThrows(IllegalArgumentException.class, () -> log.offsetForTimestamp(-3));
        }
    }

    @Test
    void deleteRecordsBeforeIsPersistedSoReopenNeverResurrectsRecords() {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 400, 10);
            int before = log.segmentCount();
            log.deleteRecordsBefore(250);
            assertEquals(250, log.logStartOffset());
            assertTrue(log.segmentCount() < before, "whole segments below the start are deleted");
            assertValues(readAll(log), 250, 400);
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(249, 1, 100));
            assertThrows(OffsetOutOfRangeException.class, () -> log.deleteRecordsBefore(401));
        }
        try (SegmentLog log = TestLogs.open(dir, small())) {
            assertEquals(250, log.logStartOffset());
            assertValues(readAll(log), 250, 400);
            log.deleteRecordsBefore(400);
            assertEquals(1, log.segmentCount(), "the active segment stays");
        }
        try (SegmentLog log = TestLogs.open(dir, small())) {
            assertEquals(400, log.logStartOffset());
            assertEquals(400, log.nextOffset(), "offsets continue after the log was trimmed empty");
            assertEquals(List.of(), readAll(log));
        }
    }

    @Test
    void startAtMakesAnEmptyLogContinueAtTheGivenOffset() {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            log.startAt(5_000);
            assertEquals(5_000, log.append(1, null, "x".getBytes()));
            log.commit();
        }
        try (SegmentLog log = TestLogs.open(dir, small())) {
            assertEquals(5_000, log.logStartOffset());
            assertEquals(5_001, log.nextOffset());
            assertThrows(IllegalStateException.class, () -> log.startAt(9_000));
        }
    }

    @Test
    void readersRunningBesideTheWriterNeverSeeAPartialBatch() throws Exception {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                try {
                    long next = 0;
                    while (next < 3_000) {
                        List<StoredRecord> records = log.read(next, 100, Integer.MAX_VALUE);
                        for (StoredRecord r : records) {
                            assertEquals(next, r.offset());
                            assertEquals(1000 + next, r.timestamp());
                            next++;
                        }
                        assertTrue(next <= log.highWatermark());
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "reader");
            reader.start();
            appendValues(log, 3_000, 13);
            reader.join(30_000);
            if (failure.get() != null) {
                throw new AssertionError("reader failed", failure.get());
            }
        }
    }

    @Test
    void cursorScansTheWholeLogWithoutCopying() {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 1_000, 50);
            long count = 0;
            try (LogCursor cursor = log.cursor(0)) {
                while (cursor.next()) {
                    assertEquals(count, cursor.offset());
                    assertTrue(cursor.keyEquals(TestLogs.key(count)));
                    count++;
                }
            }
            assertEquals(1_000, count);
        }
    }

    @Test
    void aCompactedLogRefusesRecordsWithoutKey() {
        try (SegmentLog log = TestLogs.open(dir, small().toBuilder().cleanupPolicy(CleanupPolicy.COMPACT).build())) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> log.append(1, null, "v".getBytes()));
            assertTrue(e.getMessage().contains("needs a key"), e.getMessage());
        }
    }

    @Test
    void aRecordLargerThanASegmentIsRefusedAndOneLargerThanABatchGetsItsOwn() {
        try (SegmentLog log = TestLogs.open(dir, small().toBuilder().segmentBytes(64 * 1024).build())) {
            assertThrows(RecordTooLargeException.class, () -> log.append(1, null, new byte[70 * 1024]));
            log.append(1, null, "small".getBytes());
            long big = log.append(2, null, new byte[50 * 1024]);
            log.commit();
            assertEquals(50 * 1024, log.read(big, 1, 1).get(0).value().length);
        }
    }

    @Test
    void aSecondOpenOfTheSameDirectoryIsRefused() {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            StorageException e = assertThrows(StorageException.class, () -> TestLogs.open(dir, small()));
            assertTrue(e.getMessage().contains("already open"), e.getMessage());
        }
    }

    @Test
    void recordsWithManyTagsRoundTrip() {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            Record record = new Record("k".getBytes(), "v".getBytes(), 5, List.of("a", "b/c", "ü"));
            long offset = log.append(record);
            log.commit();
            assertEquals(record, log.read(offset, 1, 100).get(0).record());
        }
    }
}
