package io.sluice.storage.segment;

import static io.sluice.storage.segment.TestLogs.appendValues;
import static io.sluice.storage.segment.TestLogs.assertValues;
import static io.sluice.storage.segment.TestLogs.readAll;
import static io.sluice.storage.segment.TestLogs.small;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.testing.Eventually;

class LogRecoveryTest {
    @TempDir
    Path tmp;

    /** One batch as it lies on disk. */
    private record BatchAt(Path file, long start, long end, long baseOffset) {
    }

    private SegmentLog liveLogWith(int records) {
        SegmentLog log = TestLogs.open(tmp.resolve("live"), small());
        appendValues(log, records, 9);
        return log;
    }

    private static List<BatchAt> batches(Path dir) throws IOException {
        List<BatchAt> batches = new ArrayList<>();
        for (Path file : CrashFiles.files(dir, Segment.LOG_SUFFIX)) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                BatchIterator it = new BatchIterator(channel, file, 0, channel.size(), true);
                while (it.next()) {
                    batches.add(new BatchAt(file, it.batchPosition(), it.batchPosition() + it.batchSize(),
                            RecordBatch.baseOffset(it.buffer(), it.batchIndex())));
                }
            }
        }
        return batches;
    }

    @Test
    void corruptionAtARandomPointRecoversExactlyTheValidPrefix() throws Exception {
        Path live = tmp.resolve("source");
        try (SegmentLog log = liveLogWith(600)) {
            CrashFiles.snapshot(log.directory(), live);
        }
        Random random = new Random(20240611);
        for (int round = 0; round < 25; round++) {
            Path crashed = CrashFiles.snapshot(live, tmp.resolve("crash-" + round));
            Files.delete(crashed.resolve(LogCheckpoint.FILE_NAME)); // no recovery point: every segment is scanned
            List<BatchAt> batches = batches(crashed);
            BatchAt victim = batches.get(random.nextInt(batches.size()));
            long position = victim.start() + random.nextInt((int) (victim.end() - victim.start()));
            CrashFiles.flipByte(crashed.resolve(victim.file().getFileName()), position);

            try (SegmentLog log = TestLogs.open(crashed, small())) {
                assertValues(readAll(log), 0, victim.baseOffset());
                assertEquals(victim.baseOffset(), log.nextOffset(), "appends continue right after the valid prefix");
                assertTrue(log.recoveryReport().bytesTruncated() > 0);
                assertFalse(log.recoveryReport().cuts().isEmpty());
                assertTrue(log.recoveryReport().cuts().get(0).contains(victim.file().getFileName().toString()));
            }
        }
    }

    @Test
    void garbageAppendedToTheLogIsRemovedOnReopen() throws Exception {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 300, 10);
        }
        List<Path> segments = CrashFiles.files(dir, Segment.LOG_SUFFIX);
        Path last = segments.get(segments.size() - 1);
        long size = Files.size(last);
        CrashFiles.appendGarbage(last, 777, new Random(3));
        try (SegmentLog log = TestLogs.open(dir, small())) {
            assertEquals(777, log.recoveryReport().bytesTruncated());
            assertEquals(size, Files.size(last));
            assertValues(readAll(log), 0, 300);
        }
        Files.delete(dir.resolve(LogLoader.CLEAN_SHUTDOWN_FILE).resolveSibling("log.checkpoint"));
        CrashFiles.appendGarbage(last, 100, new Random(4));
        try (SegmentLog log = TestLogs.open(dir, small())) {
            assertEquals(100, log.recoveryReport().bytesTruncated(), "also after an unclean shutdown");
            assertValues(readAll(log), 0, 300);
        }
    }

    @Test
    void garbageAppendedToAnIndexIsRemovedOnReopen() throws Exception {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 300, 10);
        }
        Path index = CrashFiles.files(dir, Segment.INDEX_SUFFIX).get(1);
        Path timeIndex = CrashFiles.files(dir, Segment.TIME_INDEX_SUFFIX).get(1);
        byte[] original = Files.readAllBytes(index);
        byte[] originalTime = Files.readAllBytes(timeIndex);
        CrashFiles.appendGarbage(index, 24, new Random(5));
        CrashFiles.appendGarbage(timeIndex, 36, new Random(6));
        try (SegmentLog log = TestLogs.open(dir, small())) {
            assertEquals(1, log.recoveryReport().indexesRebuilt());
            assertValues(readAll(log), 0, 300);
        }
        assertArrayEquals(original, Files.readAllBytes(index));
        assertArrayEquals(originalTime, Files.readAllBytes(timeIndex));
    }

    @Test
    void deletedOrCorruptIndexesAreRebuiltExactly() throws Exception {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 400, 10);
        }
        Map<Path, byte[]> originals = new HashMap<>();
        for (Path file : CrashFiles.files(dir, "index")) {
            originals.put(file, Files.readAllBytes(file));
        }
        List<Path> indexes = new ArrayList<>(originals.keySet());
        indexes.sort(null);
        Files.delete(indexes.get(0));
        Files.delete(indexes.get(1));
        Path scribbled = indexes.get(4);
        byte[] noise = new byte[16];
        new Random(8).nextBytes(noise);
        try (FileChannel channel = FileChannel.open(scribbled, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(noise), 8);
        }
        try (SegmentLog log = TestLogs.open(dir, small())) {
            assertTrue(log.recoveryReport().indexesRebuilt() >= 2, log.recoveryReport().toString());
            assertValues(readAll(log), 0, 400);
            assertEquals(173, log.offsetForTimestamp(1173));
        }
        for (Map.Entry<Path, byte[]> original : originals.entrySet()) {
            assertArrayEquals(original.getValue(), Files.readAllBytes(original.getKey()), original.getKey() + " differs");
        }
    }

    @Test
    void aPartialLastBatchIsNeverVisibleAndItsOffsetsAreReused() throws Exception {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 200, 10);
        }
        List<BatchAt> batches = batches(dir);
        BatchAt last = batches.get(batches.size() - 1);
        CrashFiles.truncate(last.file(), last.start() + (last.end() - last.start()) / 2);
        try (SegmentLog log = TestLogs.open(dir, small())) {
            assertValues(readAll(log), 0, last.baseOffset());
            assertEquals(last.baseOffset(), log.highWatermark());
            appendValues(log, 200 - (int) last.baseOffset(), 10);
            assertValues(readAll(log), 0, 200);
        }
    }

    @Test
    void aCleanShutdownSkipsTheScanAndACrashScansOnlyFromTheRecoveryPoint() throws Exception {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 500, 10);
            long activeBase = log.segments().last().baseOffset();
            Eventually.await(() -> checkpointedRecoveryPoint(dir) == activeBase,
                    "the recovery point on disk reaches the active segment");
            Path crashed = CrashFiles.snapshot(dir, tmp.resolve("crash"));
            try (SegmentLog recovered = TestLogs.open(crashed, small())) {
                assertFalse(recovered.recoveryReport().cleanShutdown());
                assertEquals(1, recovered.recoveryReport().segmentsScanned(), "only the active segment");
                assertValues(readAll(recovered), 0, 500);
            }
        }
        try (SegmentLog log = TestLogs.open(dir, small())) {
            assertTrue(log.recoveryReport().cleanShutdown());
            assertEquals(0, log.recoveryReport().segmentsScanned());
            assertFalse(Files.exists(dir.resolve(LogLoader.CLEAN_SHUTDOWN_FILE)), "the marker is gone once open");
            assertValues(readAll(log), 0, 500);
        }
    }

    private static long checkpointedRecoveryPoint(Path dir) {
        try {
            return LogCheckpoint.read(dir).recoveryPoint();
        } catch (IOException e) {
            return -1; // being replaced right now
        }
    }

    @Test
    void aCrashDuringARollLosesNothing() throws Exception {
        Path live = tmp.resolve("source");
        try (SegmentLog log = liveLogWith(300)) {
            CrashFiles.snapshot(log.directory(), live); // taken while open: what kill -9 leaves
        }
        long next = 300;
        // 1: the new segment's files exist, nothing written to them yet.
        Path created = CrashFiles.snapshot(live, tmp.resolve("created"));
        Segment.create(created, next, small(), "").release();
        // 2: only the new segment's index files exist.
        Path indexOnly = CrashFiles.snapshot(live, tmp.resolve("index-only"));
        Segment.create(indexOnly, next, small(), "").release();
        Files.delete(CrashFiles.segmentFile(indexOnly, next, Segment.LOG_SUFFIX));
        // 3: as 1, and no checkpoint was ever written, so the untrimmed previous segment is scanned too.
        Path untrimmed = CrashFiles.snapshot(live, tmp.resolve("untrimmed"));
        Segment.create(untrimmed, next, small(), "").release();
        Files.delete(untrimmed.resolve(LogCheckpoint.FILE_NAME));

        for (Path crashed : List.of(created, indexOnly, untrimmed)) {
            try (SegmentLog log = TestLogs.open(crashed, small())) {
                if (crashed == indexOnly) {
                    assertFalse(Files.exists(CrashFiles.segmentFile(indexOnly, next, Segment.INDEX_SUFFIX)),
                            "an index without its segment is deleted");
                }
                assertValues(readAll(log), 0, 300);
                assertEquals(300, log.nextOffset());
                appendValues(log, 50, 10);
                assertValues(readAll(log), 0, 350);
            }
            try (SegmentLog log = TestLogs.open(crashed, small())) {
                assertValues(readAll(log), 0, 350);
            }
        }
    }

    @Test
    void aDamagedCheckpointMeansAFullScanFromTheFirstSegment() throws Exception {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = TestLogs.open(dir, small())) {
            appendValues(log, 300, 10);
        }
        Files.write(dir.resolve(LogCheckpoint.FILE_NAME), new byte[] {1, 2, 3});
        Files.delete(dir.resolve(LogLoader.CLEAN_SHUTDOWN_FILE));
        try (SegmentLog log = TestLogs.open(dir, small())) {
            assertEquals(log.segmentCount(), log.recoveryReport().segmentsScanned());
            assertValues(readAll(log), 0, 300);
        }
    }
}
