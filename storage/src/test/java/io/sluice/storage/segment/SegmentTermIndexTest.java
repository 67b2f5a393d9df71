package io.sluice.storage.segment;

import static io.sluice.storage.segment.TermIndexedShard.offsets;
import static io.sluice.storage.segment.TermIndexedShard.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.storage.LogSettings;
import io.sluice.storage.ShardSettings;

/** The segment engine's key and tag index: sealed segments' files, the in-memory tail, rebuilds. */
class SegmentTermIndexTest {
    private static final ShardSettings SMALL = ShardSettings.segment(LogSettings.builder().segmentBytes(4096)
            .retentionMs(LogSettings.UNLIMITED).build());

    @TempDir
    Path dir;
    private TermIndexedShard terms;
    private SegmentShard shard;

    @BeforeEach
    void open() {
        terms = new TermIndexedShard("terms_0", SMALL, dir);
        shard = terms.shard();
    }

    @AfterEach
    void close() {
        terms.close();
    }

    private void reopen() {
        terms.reopen();
        shard = terms.shard();
    }

    /** Record i: key "k<i % 7>". */
    private void write(int from, int to) {
        for (int i = from; i < to; i++) {
            terms.write(i, "k" + i % 7);
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
        assertTrue(terms.indexFiles().size() > 5, "sealed segments have index files: " + terms.indexFiles());
    }

    @Test
    void indexFilesAreReusedAfterAReopenAndRebuiltWhenDamaged() throws IOException {
        write(0, 600);
        assertLookups(600);
        reopen();
        assertLookups(600);
        Path damaged = terms.indexFiles().get(1);
        Files.write(damaged, new byte[] {1, 2, 3});
        reopen();
        assertLookups(600);
        assertTrue(Files.size(damaged) > 3, "rebuilt: " + damaged);
    }

    @Test
    void filesOfDeletedSegmentsGoAndTrimmedRecordsAreNotFound() throws IOException {
        write(0, 600);
        assertLookups(600);
        Path first = terms.indexFiles().get(0);
        shard.deleteRecordsBefore(400);
        assertEquals(expected(600, 400, i -> i % 7 == 2), offsets(shard.readByKey(utf8("k2"), 0, 10_000)));
        assertFalse(Files.exists(first), "the first segment's index went with it");
    }
}
