package io.sluice.storage.segment;

import static io.sluice.storage.segment.TermIndexedShard.offsets;
import static io.sluice.storage.segment.TermIndexedShard.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogSettings;
import io.sluice.storage.Record;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StoredRecord;

/**
 * The segment engine's cached key and tag index files when compaction merges segments: reads by
 * key and tag give exactly the records a scan finds, straight after the merge, from the cached
 * files after a reopen, and after a cached file was damaged or deleted.
 */
class SegmentTermIndexCompactionTest {
    /** Small segments, so a few hundred records make many and compaction merges them in groups. */
    private static final ShardSettings COMPACTED = ShardSettings.segment(LogSettings.builder().segmentBytes(4096)
            .retentionMs(LogSettings.UNLIMITED).flush(FlushPolicy.ALWAYS).cleanupPolicy(CleanupPolicy.COMPACT)
            .build());
    private static final int KEYS = 7;
    
    @TempDir
    Path dir;
    private TermIndexedShard terms;
    private int written;

    @BeforeEach
    void open() {
        terms = new TermIndexedShard("compacted_0", COMPACTED, dir);
    }

    @AfterEach
    void close() {
        terms.close();
    }

    /** Record i's key: every third one unique ("u<i>", never superseded), the others "k<i % 7>". */
    private static String key(int i) {
        return i % 3 == 0 ? "u" + i : "k" + i % KEYS;
    }

    private void writeUpTo(int to) {
        for (int i = written; i < to; i++) {
            terms.write(i, key(i));
        }
        written = to;
    }

    private SegmentLog log() {
        return terms.log();
    }

    /**
     * Compacts twice and checks that records went and segments were merged: a pass groups segments
     * by their size before it, so the first pass shrinks them and the second merges them.
     */
    private void compactMerging() {
        int segments = log().segmentCount();
        long removed = log().compact(System.currentTimeMillis());
        log().compact(System.currentTimeMillis());
        assertTrue(removed > 0, "compaction removed records");
        assertTrue(log().segmentCount() < segments, "compaction merged segments: " + segments + " -> " + log().segmentCount());
    }

    private static List<Long> matching(List<StoredRecord> all, long from, Predicate<StoredRecord> match) {
        return offsets(all.stream().filter(r -> r.offset() >= from && match.test(r)).toList());
    }

    /** Every unique key and the latest record of every other key are kept, each at the offset it was written at. */
    private void assertCompactedCorrectly(List<StoredRecord> all) {
        Map<String, Integer> latest = new HashMap<>();
        for (int i = 0; i < written; i++) {
            latest.put(key(i), i);
        }
        Set<Long> present = new TreeSet<>(offsets(all));
        for (int i : latest.values()) {
            assertTrue(present.contains((long) i), "the latest record of " + key(i) + " at " + i + " is kept");
        }
        for (StoredRecord r : all) {
            assertTrue(new String(r.value(), StandardCharsets.UTF_8).startsWith("value " + r.offset() + " "),
                    "record at " + r.offset() + " is the one written there");
        }
    }

    /** Reads by every key written and every tag, whole and from the middle, agree exactly with a scan. */
    private void assertIndexAgreesWithScan() {
        List<StoredRecord> all = terms.scan();
        assertCompactedCorrectly(all);
        long middle = written / 2 + 1;
        for (String key : allKeys()) {
            Predicate<StoredRecord> hasKey = r -> Arrays.equals(r.key(), utf8(key));
            assertEquals(matching(all, 0, hasKey), offsets(terms.shard().readByKey(utf8(key), 0, 10_000)), "key " + key);
            assertEquals(matching(all, middle, hasKey), offsets(terms.shard().readByKey(utf8(key), middle, 10_000)),
                    "key " + key + " from " + middle);
        }
        for (int t = 0; t < TermIndexedShard.TAGS; t++) {
            String tag = "t" + t;
            assertEquals(matching(all, 0, r -> r.tags().contains(tag)), offsets(terms.shard().readByTag(tag, 0, 10_000)), tag);
        }
        List<Long> tenths = matching(all, 0, r -> r.tags().contains("tenth"));
        assertEquals(tenths.subList(0, 7), offsets(terms.shard().readByTag("tenth", 0, 7)), "the first 7 tenths");
        assertEquals(tenths, offsets(terms.shard().readByTag("tenth", 0, 10_000)), "every tenth");
        assertEquals(List.of(), terms.shard().readByKey(utf8("u1"), 0, 10), "a key never written");
    }

    private Set<String> allKeys() {
        Set<String> keys = new TreeSet<>();
        for (int i = 0; i < written; i++) {
            keys.add(key(i));
        }
        return keys;
    }

    /** Index files exist for sealed segments only: none is left of a segment the merge removed. */
    private void assertIndexFilesFollowSegments() throws IOException {
        Set<String> segments = log().segments().all().stream()
                .map(s -> Segment.fileName(s.baseOffset(), TermIndexFile.SUFFIX)).collect(Collectors.toSet());
        List<Path> files = terms.indexFiles();
        assertFalse(files.isEmpty(), "sealed segments have index files");
        for (Path file : files) {
            assertTrue(segments.contains(file.getFileName().toString()), file + " belongs to a segment of " + segments);
        }
    }

    /** Each index file's identity (a rebuild replaces the file by rename, so a new identity). */
    private Map<Path, Object> fileIdentities() throws IOException {
        Map<Path, Object> identities = new HashMap<>();
        for (Path file : terms.indexFiles()) {
            identities.put(file, Files.readAttributes(file, BasicFileAttributes.class).fileKey());
        }
        return identities;
    }

    @Test
    void readsByKeyAndTagStayExactAfterCompactionMergesIndexedSegments() throws IOException {
        writeUpTo(300);
        assertIndexAgreesWithScan(); // sealed segments get files, the active one is in memory
        writeUpTo(700); // sealed segments the index has not seen yet
        compactMerging();
        assertIndexAgreesWithScan();
        assertIndexFilesFollowSegments();
    }

    @Test
    void cachedIndexFilesOfMergedSegmentsAreReusedAfterAReopen() throws IOException {
        writeUpTo(700);
        compactMerging();
        assertIndexAgreesWithScan();
        Map<Path, Object> built = fileIdentities();
        terms.reopen();
        assertIndexAgreesWithScan();
        assertEquals(built, fileIdentities(), "the cached files were used, not rebuilt");
    }

    @Test
    void cachedIndexFilesMadeStaleByAMergeBeforeTheirFirstUseAreNotTrusted() throws IOException {
        writeUpTo(500);
        assertIndexAgreesWithScan();
        terms.reopen();
        // the cached files on disk describe segments the next compaction merges before any lookup
        writeUpTo(900);
        compactMerging();
        assertIndexAgreesWithScan();
        assertIndexFilesFollowSegments();
        terms.reopen();
        assertIndexAgreesWithScan();
    }

    @Test
    void damagedOrDeletedIndexFilesOfMergedSegmentsAreRebuilt() throws IOException {
        writeUpTo(700);
        compactMerging();
        assertIndexAgreesWithScan();
        List<Path> files = terms.indexFiles();
        assertTrue(files.size() >= 2, "at least two sealed segments after the merge: " + files);
        Path damaged = files.get(0);
        Path deleted = files.get(files.size() - 1);
        Object damagedIdentity = fileIdentities().get(damaged);
        byte[] bytes = Files.readAllBytes(damaged);
        bytes[bytes.length - 1] ^= 0x5a; // an entry's byte: the CRC no longer matches
        Files.write(damaged, bytes);
        Files.delete(deleted);
        terms.reopen();
        assertIndexAgreesWithScan();
        assertTrue(Files.exists(deleted), "rebuilt: " + deleted);
        assertNotEquals(damagedIdentity, fileIdentities().get(damaged), "rebuilt: " + damaged);
    }
}
