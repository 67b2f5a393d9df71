package io.sluice.storage.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.zip.CRC32C;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.Header;
import io.sluice.storage.LogCursor;
import io.sluice.storage.Record;
import io.sluice.storage.RecordBatchVisitor;
import io.sluice.storage.RecordFlyweight;
import io.sluice.storage.StoredRecord;
import io.sluice.testing.Eventually;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two record layouts of {@link RecordBatch}: batches written before Kafka-layout batches existed
 * still read, visit one record at a time and compact; new batches are handed out whole, tags and
 * headers intact, alone or after old ones in the same log.
 */
class RecordLayoutTest {
    private static final long NOW = 1_000_000;

    @TempDir
    Path tmp;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Record i: key "k(i % keys)", value "v<i>", a tag on every third, headers on every other. */
    private static Record record(int i, int keys) {
        List<String> tags = i % 3 == 0 ? List.of("topic/" + i, "p" + i) : List.of();
        List<Header> headers = i % 2 == 0 ? List.of() : List.of(new Header("mqtt.qos", utf8("1")), new Header("none", null));
        return new Record(utf8("k" + (i % keys)), utf8("v" + i), NOW + i, tags, headers);
    }

    /** A batch in the layout written before {@link RecordBatch#KAFKA_RECORDS}: tags inline in each record. */
    private static byte[] oldLayoutBatch(long base, List<Record> records) {
        RecordBatchBuilder builder = new RecordBatchBuilder(64 * 1024);
        long firstTimestamp = records.get(0).timestamp();
        builder.startCopy(base, firstTimestamp, base + records.size() - 1, false);
        ByteBuffer scratch = ByteBuffer.allocate(4096);
        for (int i = 0; i < records.size(); i++) {
            Record r = records.get(i);
            scratch.clear();
            RecordBatchBuilder.writeRecord(scratch, i, r.timestamp() - firstTimestamp, r.key(), r.value(), null, r.tags(),
                    r.headers());
            builder.appendCopy(scratch, 0, scratch.position(), 0, 0, r.timestamp());
        }
        ByteBuffer sealed = builder.seal();
        byte[] bytes = new byte[sealed.remaining()];
        sealed.get(bytes);
        return bytes;
    }

    /** A log directory holding one segment of old-layout batches of 10 records each: offsets 0 to {@code count - 1}. */
    private Path oldLayoutLog(int count, int keys) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("log"));
        ByteBuffer file = ByteBuffer.allocate(1 << 20);
        for (int base = 0; base < count; base += 10) {
            List<Record> records = new ArrayList<>();
            for (int i = base; i < base + 10; i++) {
                records.add(record(i, keys));
            }
            file.put(oldLayoutBatch(base, records));
        }
        Files.write(CrashFiles.segmentFile(dir, 0, Segment.LOG_SUFFIX), Arrays.copyOf(file.array(), file.position()));
        return dir;
    }

    private static void assertRecord(int i, int keys, StoredRecord read) {
        Record expected = record(i, keys);
        assertEquals(i, read.offset());
        assertEquals(new String(expected.key(), StandardCharsets.UTF_8), new String(read.key(), StandardCharsets.UTF_8));
        assertEquals("v" + i, new String(read.value(), StandardCharsets.UTF_8));
        assertEquals(expected.timestamp(), read.timestamp());
        assertEquals(expected.tags(), read.tags(), "tags of " + i);
        assertEquals(expected.headers(), read.headers(), "headers of " + i);
    }

    /** What a visiting read handed out: single records by offset, whole batches by base offset and count. */
    private static final class Visits implements RecordBatchVisitor {
        final List<Long> records = new ArrayList<>();
        final Map<Long, Integer> batches = new TreeMap<>();

        @Override
        public void accept(RecordFlyweight record) {
            records.add(record.offset());
        }

        @Override
        public void acceptBatch(long baseOffset, int lastOffsetDelta, long firstTimestamp, long maxTimestamp, int recordCount,
                                ByteBuffer records, int recordsCrc) {
            batches.put(baseOffset, recordCount);
            CRC32C crc = new CRC32C();
            crc.update(records.duplicate());
            assertEquals((int) crc.getValue(), recordsCrc, "the records' CRC-32C");
        }
    }

    @Test
    void aSegmentWrittenInTheOldLayoutStillReadsAndTakesNewBatchesAfterIt() throws Exception {
        Path dir = oldLayoutLog(30, 1000);
        try (SegmentLog log = TestLogs.open(dir, TestLogs.small())) {
            assertEquals(30, log.highWatermark());
            List<StoredRecord> old = TestLogs.readAll(log);
            for (int i = 0; i < 30; i++) {
                assertRecord(i, 1000, old.get(i));
            }
            for (int i = 30; i < 45; i++) {
                log.append(record(i, 1000));
            }
            log.commit();
            List<StoredRecord> all = TestLogs.readAll(log);
            assertEquals(45, all.size());
            for (int i = 0; i < 45; i++) {
                assertRecord(i, 1000, all.get(i));
            }

            Visits visits = new Visits();
            assertEquals(45 - 5, log.read(5, Integer.MAX_VALUE, Integer.MAX_VALUE, visits));
            assertEquals(LongStream.range(5, 30).boxed().toList(), visits.records,
                    "old batches are visited record by record, from the offset asked for");
            assertEquals(Map.of(30L, 15), visits.batches, "the new batch is handed out whole");

            Visits midBatch = new Visits();
            log.read(37, Integer.MAX_VALUE, Integer.MAX_VALUE, midBatch);
            assertEquals(List.of(), midBatch.records);
            assertEquals(Map.of(30L, 15), midBatch.batches, "a whole batch starts before the offset asked for");
        }
        try (SegmentLog log = TestLogs.open(dir, TestLogs.small())) {
            List<StoredRecord> all = TestLogs.readAll(log);
            for (int i = 0; i < 45; i++) {
                assertRecord(i, 1000, all.get(i));
            }
        }
    }

    @Test
    void tagsAreFoundInTheTagsSectionOfNewBatches() throws Exception {
        try (SegmentLog log = TestLogs.open(tmp.resolve("log"), TestLogs.small())) {
            for (int i = 0; i < 12; i++) {
                log.append(record(i, 1000));
            }
            log.commit();
            List<Long> tagged = new ArrayList<>();
            try (LogCursor cursor = log.cursor(0)) {
                while (cursor.next()) {
                    assertEquals(cursor.offset() % 3 == 0, cursor.hasTag(utf8("topic/" + cursor.offset())), "at " + cursor.offset());
                    assertFalse(cursor.hasTag(utf8("topic/x")));
                    if (!cursor.tags().isEmpty()) {
                        tagged.add(cursor.offset());
                    }
                }
            }
            assertEquals(List.of(0L, 3L, 6L, 9L), tagged);
        }
    }

    @Test
    void compactionKeepsEachBatchsLayoutWithItsTags() throws Exception {
        Path dir = oldLayoutLog(200, 20);
        var settings = TestLogs.small().toBuilder().cleanupPolicy(CleanupPolicy.COMPACT).deleteRetentionMs(1000)
                .segmentBytes(2048).build();
        try (SegmentLog log = TestLogs.open(dir, settings)) {
            for (int i = 200; i < 400; i++) {
                log.append(record(i, 20));
                if (i % 10 == 9) {
                    log.commit();
                }
            }
            log.commit();
            long activeBase = log.segments().last().baseOffset();
            Eventually.await(() -> log.recoveryPoint() == activeBase, "rolled segments are flushed");
            assertTrue(log.compact(NOW + 10_000) > 0, "compaction removed records");
            Map<String, Integer> latest = new TreeMap<>();
            for (StoredRecord r : TestLogs.readAll(log)) {
                int i = Integer.parseInt(new String(r.value(), StandardCharsets.UTF_8).substring(1));
                assertRecord(i, 20, r);
                latest.put(new String(r.key(), StandardCharsets.UTF_8), i);
            }
            for (int k = 0; k < 20; k++) {
                assertEquals(380 + k, latest.get("k" + k), "the latest value of k" + k);
            }
            Visits visits = new Visits();
            log.read(log.logStartOffset(), Integer.MAX_VALUE, Integer.MAX_VALUE, visits);
            assertFalse(visits.batches.isEmpty(), "compacted new batches are still handed out whole");
            assertEquals(TestLogs.readAll(log).size(), visits.records.size() + visits.batches.values().stream()
                    .mapToInt(Integer::intValue).sum());
        }
    }
}
