package io.sluice.storage.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class PostingsTest {
    private final Set<Long> live = new HashSet<>();
    private final Postings postings = new Postings();

    private void add(long offset) {
        live.add(offset);
        postings.add(offset);
    }

    private boolean remove(long offset) {
        live.remove(offset);
        return postings.remove(offset, live::contains);
    }

    private List<Long> from(long from) {
        List<Long> out = new ArrayList<>();
        postings.forEachFrom(from, offset -> out.add(offset));
        return out;
    }

    @Test
    void readsStartAtTheFirstOffsetAtOrAfterFromAndStopWhenTheVisitorSaysSo() {
        for (long offset = 10; offset < 100; offset += 10) {
            add(offset);
        }
        assertEquals(List.of(40L, 50L, 60L, 70L, 80L, 90L), from(35));
        assertEquals(List.of(40L, 50L, 60L, 70L, 80L, 90L), from(40));
        assertEquals(List.of(), from(91));
        List<Long> two = new ArrayList<>();
        postings.forEachFrom(0, offset -> two.add(offset) && two.size() < 2);
        assertEquals(List.of(10L, 20L), two);
    }

    @Test
    void aTagListedTwiceOnOneRecordIsOneEntry() {
        add(5);
        postings.add(5);
        assertEquals(List.of(5L), from(0));
        assertTrue(remove(5));
    }

    @Test
    void removalsAnywhereLeaveExactlyTheLiveOffsetsAndTheLastOneEmptiesIt() {
        for (long offset = 0; offset < 10_000; offset++) {
            add(offset);
        }
        for (long offset = 1; offset < 10_000; offset += 2) {
            assertFalse(remove(offset));
        }
        for (long offset = 0; offset < 100; offset += 2) {
            assertFalse(remove(offset));
        }
        List<Long> expected = new ArrayList<>();
        for (long offset = 100; offset < 10_000; offset += 2) {
            expected.add(offset);
        }
        List<Long> read = new ArrayList<>();
        postings.forEachFrom(0, offset -> live.contains(offset) ? read.add(offset) : true);
        assertEquals(expected, read);
        assertTrue(from(0).size() < 2 * expected.size(), "stale entries are dropped once they are half of the run");
        for (long offset : expected) {
            assertEquals(offset == 9_998, remove(offset));
        }
        add(20_000);
        assertEquals(List.of(20_000L), from(0));
    }
}
