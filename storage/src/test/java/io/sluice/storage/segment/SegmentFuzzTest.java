package io.sluice.storage.segment;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.storage.CorruptRecordException;
import io.sluice.storage.LogCursor;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.StorageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes the segment decoders: recovery of a segment file at open, then a read of every record
 * (docs/reliability.md). Contract: open either succeeds, cutting what does not check, or fails with
 * a {@link StorageException}; a read returns records in offset order or fails with a
 * {@link CorruptRecordException} naming the file and position; nothing else escapes. Inputs whose
 * first byte is odd are framed as one batch with a correct length, magic and CRC, so the fuzzer
 * reaches the record decoder behind the checksum.
 */
class SegmentFuzzTest {
    private static final LogScheduler SCHEDULER = new LogScheduler("segment-fuzz");
    private static Path base;
    private static int runs;

    @FuzzTest(maxDuration = "5m")
    void recoversAndReadsOrRefuses(byte[] data) throws IOException {
        Path dir = baseDir().resolve("log-" + runs++);
        Files.createDirectories(dir);
        boolean forge = data.length > 0 && (data[0] & 1) == 1;
        Files.write(dir.resolve(Segment.fileName(0, Segment.LOG_SUFFIX)), forge ? asBatch(data) : data);
        try {
            readAll(dir);
        } finally {
            delete(dir);
        }
    }

    private static void readAll(Path dir) {
        SegmentLog log;
        try {
            log = SegmentLog.open(dir, "fuzz", TestLogs.small(), SCHEDULER);
        } catch (StorageException refused) {
            return;
        }
        try (log; LogCursor cursor = log.cursor(log.logStartOffset())) {
            long previous = -1;
            while (cursor.next()) {
                assertTrue(cursor.offset() > previous, "offsets go up: " + cursor.offset() + " after " + previous);
                previous = cursor.offset();
                cursor.payloadBytes();
                cursor.toStoredRecord();
            }
        } catch (CorruptRecordException expected) {
            assertTrue(expected.getMessage().contains(dir.toString()), expected.getMessage());
        }
    }

    /** The input as the part of a batch after its CRC, with the length, magic and CRC a writer puts there. */
    private static byte[] asBatch(byte[] data) {
        int body = Math.max(data.length, RecordBatch.HEADER_SIZE - RecordBatch.MAGIC_OFFSET);
        ByteBuffer batch = ByteBuffer.allocate(RecordBatch.MAGIC_OFFSET + body);
        batch.putInt(RecordBatch.LENGTH_OFFSET, batch.capacity() - RecordBatch.LENGTH_LENGTH);
        batch.position(RecordBatch.MAGIC_OFFSET);
        batch.put(data);
        batch.put(RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC);
        batch.putInt(RecordBatch.CRC_OFFSET, RecordBatch.computeCrc(batch, 0, new CRC32C()));
        return batch.array();
    }

    private static Path baseDir() throws IOException {
        if (base == null) {
            base = Files.createTempDirectory("segment-fuzz");
        }
        return base;
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    @AfterAll
    static void cleanUp() throws IOException {
        SCHEDULER.close();
        if (base != null) {
            delete(base);
        }
    }
}
