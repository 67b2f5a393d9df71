package io.sluice.storage.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.storage.LogScheduler;
import io.sluice.storage.LogSettings;
import io.sluice.storage.Record;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StoredRecord;

/** The segment engine's key and tag index: sealed segments' files, the in-memory tail, rebuilds. */
class SegmentTermIndexTest {
    private static final ShardSettings SMALL = ShardSettings.segment(LogSettings.builder().segmentBytes(4096)
            .retentionMs(LogSettings.UNLIMITED).build());

    @TempDir
    Path dir;
    private LogScheduler scheduler;
    private SegmentShard shard;

    @BeforeEach
    void open() {
        scheduler = new LogScheduler("terms", 1, 3_600_000);
        shard = SegmentShard.open("terms_0", SMALL, dir, scheduler);
    }

    @AfterEach
    void close() {
        shard.close();
        scheduler.close();
    }

    private void reopen() {
        shard.close();
        shard = SegmentShard.open("terms_0", SMALL, dir, scheduler);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Record i: key "k<i % 7>", tag "t<i % 5>" and, for every tenth, also "tenth". */
    private void write(int from, int to) {
        for (int i = from; i < to; i++) {
            List<String> tags = i % 10 == 0 ? List.of("t" + i % 5, "tenth") : List.of("t" + i % 5);
            shard.write(new Record(utf8("k" + i % 7), utf8("value " + i + " ".repeat(40)), i, tags));
        }
    }

    private static List<Long> expected(int count, long from, java.util.function.IntPredicate match) {
        List<Long> offsets = new ArrayList<>();
        for (int i = (int) from; i < count; i++) {
            if (match.test(i)) {
                offsets.add((long) i);
            }
        }
        return offsets;
    }

    private static List<Long> offsets(List<StoredRecord> records) {
        return records.stream().map(StoredRecord::offset).toList();
    }

    private List<Path> indexFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(TermIndexFile.SUFFIX)).sorted().toList();
        }
    }

    private void assertLookups(int count) {
        for (int k = 0; k < 7; k++) {
            int key = k;
            assertEquals(expected(count, 0, i -> i % 7 == key), offsets(shard.readByKey(utf8("k" + k), 0, 10_000)), "k" + k);
            assertEquals(expected(count, 301, i -> i % 7 == key), offsets(shard.readByKey(utf8("k" + k), 301, 10_000)));
        }
        assertEquals(expected(count, 0, i -> i % 5 == 3), offsets(shard.readByTag("t3", 0, 10_000)));
        assertEquals(expected(count, 0, i -> i % 10 == 0).subList(0, 7), offsets(shard.readByTag("tenth", 0, 7)));
        assertEquals(List.of(), shard.readByKey(utf8("k"), 0, 10));
    }

    @Test
    void lookupsAcrossSealedSegmentsAndTheTailFindExactlyTheMatches() throws IOException {
        write(0, 500);
        assertLookups(500);
        write(500, 900);
        assertLookups(900);
        assertTrue(indexFiles().size() > 5, "sealed segments have index files: " + indexFiles());
    }

    @Test
    void indexFilesAreReusedAfterAReopenAndRebuiltWhenDamaged() throws IOException {
        write(0, 600);
        assertLookups(600);
        reopen();
        assertLookups(600);
        Path damaged = indexFiles().get(1);
        Files.write(damaged, new byte[] {1, 2, 3});
        reopen();
        assertLookups(600);
        assertTrue(Files.size(damaged) > 3, "rebuilt: " + damaged);
    }

    @Test
    void filesOfDeletedSegmentsGoAndTrimmedRecordsAreNotFound() throws IOException {
        write(0, 600);
        assertLookups(600);
        Path first = indexFiles().get(0);
        shard.deleteRecordsBefore(400);
        assertEquals(expected(600, 400, i -> i % 7 == 2), offsets(shard.readByKey(utf8("k2"), 0, 10_000)));
        assertFalse(Files.exists(first), "the first segment's index went with it");
    }

    @Test
    void afterCompactionTheIndexStillAgreesWithAScan() throws Exception {
        ShardSettings compacted = ShardSettings.segment(LogSettings.builder().segmentBytes(4096)
                .retentionMs(LogSettings.UNLIMITED).flush(io.sluice.storage.FlushPolicy.ALWAYS)
                .cleanupPolicy(io.sluice.storage.CleanupPolicy.COMPACT).minCleanableDirtyRatio(0.01).build());
        shard.close();
        shard = SegmentShard.open("compacted_0", compacted, dir.resolve("compacted"), scheduler);
        write(0, 600);
        assertEquals(scan("k3"), offsets(shard.readByKey(utf8("k3"), 0, 10_000)));
        int before = scan("k3").size();
        io.sluice.testing.Eventually.await(() -> {
            scheduler.maintain();
            return scan("k3").size() < before;
        }, "compaction removes superseded records");
        for (int k = 0; k < 7; k++) {
            assertEquals(scan("k" + k), offsets(shard.readByKey(utf8("k" + k), 0, 10_000)), "k" + k);
        }
    }

    /** The offsets of a key's records by reading the whole shard. */
    private List<Long> scan(String key) {
        List<Long> offsets = new ArrayList<>();
        for (long offset = shard.startOffset(); offset < shard.endOffset(); ) {
            List<StoredRecord> chunk = shard.readByOffset(offset, 1000, 1 << 20);
            for (StoredRecord record : chunk) {
                if (java.util.Arrays.equals(record.key(), utf8(key))) {
                    offsets.add(record.offset());
                }
            }
            offset = chunk.get(chunk.size() - 1).offset() + 1;
        }
        return offsets;
    }
}
