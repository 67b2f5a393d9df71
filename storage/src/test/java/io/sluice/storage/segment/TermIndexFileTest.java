package io.sluice.storage.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sealed segment's index file searched through its in-memory filter and fences: every term's
 * offsets come back exactly as a scan of the entries finds them, across many fence strides.
 */
class TermIndexFileTest {
    private static final long BASE = 1_000;
    private static final int ENTRIES = 20_000;

    @TempDir
    Path dir;

    @Test
    void everyTermFindsExactlyItsOffsets() throws IOException {
        SplittableRandom random = new SplittableRandom(21);
        long[] terms = new long[3_000];
        for (int i = 0; i < terms.length; i++) {
            terms[i] = random.nextLong();
        }
        // term i appears about i / 300 + 1 times: single entries and runs longer than a fence stride
        long[] hashes = new long[ENTRIES];
        long[] offsets = new long[ENTRIES];
        for (int i = 0; i < ENTRIES; i++) {
            hashes[i] = terms[(int) Math.sqrt(random.nextInt(terms.length * terms.length))];
            offsets[i] = BASE + i;
        }
        Path path = TermIndexFile.path(dir, BASE);
        TermIndexFile.write(path, BASE, 4096, BASE + ENTRIES, hashes, offsets, ENTRIES);
        try (TermIndexFile file = TermIndexFile.openIfCurrent(path, BASE, 4096, BASE + ENTRIES)) {
            for (long term : terms) {
                for (long from : new long[] {0, BASE + ENTRIES / 2}) {
                    List<Long> found = new ArrayList<>();
                    file.offsets(term, from, ENTRIES, found);
                    assertEquals(scan(hashes, offsets, term, from), found, "term " + term + " from " + from);
                }
                assertTrue(scan(hashes, offsets, term, 0).isEmpty() || file.mightContain(term), "filter lost " + term);
            }
            assertEquals(List.of(), lookup(file, random.nextLong()));
            int ruledOut = 0;
            for (int i = 0; i < 1_000; i++) {
                ruledOut += file.mightContain(random.nextLong()) ? 0 : 1;
            }
            assertTrue(ruledOut > 950, "the filter ruled out only " + ruledOut + " of 1,000 absent terms");
        }
    }

    @Test
    void aLimitStopsTheRunOfOneTerm() throws IOException {
        long[] hashes = new long[ENTRIES];
        long[] offsets = new long[ENTRIES];
        for (int i = 0; i < ENTRIES; i++) {
            hashes[i] = i % 2 == 0 ? 42 : i;
            offsets[i] = BASE + i;
        }
        Path path = TermIndexFile.path(dir, BASE);
        TermIndexFile.write(path, BASE, 4096, BASE + ENTRIES, hashes, offsets, ENTRIES);
        try (TermIndexFile file = TermIndexFile.openIfCurrent(path, BASE, 4096, BASE + ENTRIES)) {
            List<Long> found = new ArrayList<>();
            file.offsets(42, BASE + 5_001, 3, found);
            assertEquals(List.of(BASE + 5_002, BASE + 5_004, BASE + 5_006), found);
            assertEquals(List.of(), lookup(file, 44));
        }
    }

    private static List<Long> lookup(TermIndexFile file, long hash) throws IOException {
        List<Long> found = new ArrayList<>();
        file.offsets(hash, 0, ENTRIES, found);
        return found;
    }

    private static List<Long> scan(long[] hashes, long[] offsets, long hash, long from) {
        List<Long> found = new ArrayList<>();
        for (int i = 0; i < hashes.length; i++) {
            if (hashes[i] == hash && offsets[i] >= from) {
                found.add(offsets[i]);
            }
        }
        return found;
    }
}
