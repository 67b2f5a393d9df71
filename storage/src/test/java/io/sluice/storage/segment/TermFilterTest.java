package io.sluice.storage.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The sealed segments' Bloom filter: never a false negative, about 1 % false positives, bounded size. */
class TermFilterTest {
    private static final int TERMS = 200_000;

    private static long key(String prefix, int i) {
        return SegmentTermIndex.hash(SegmentTermIndex.KEY, (prefix + i).getBytes(StandardCharsets.UTF_8));
    }

    private static TermFilter filterOfDevices() {
        TermFilter filter = new TermFilter(TERMS);
        for (int i = 0; i < TERMS; i++) {
            filter.add(key("device-", i));
        }
        return filter;
    }

    @Test
    void everyAddedTermIsFound() {
        TermFilter filter = filterOfDevices();
        for (int i = 0; i < TERMS; i++) {
            assertTrue(filter.mightContain(key("device-", i)), "device-" + i + " was added");
        }
    }

    @Test
    void falsePositivesStayNearOnePercent() {
        TermFilter filter = filterOfDevices();
        int positives = 0;
        for (int i = 0; i < TERMS; i++) {
            if (filter.mightContain(key("sensor-", i))) {
                positives++;
            }
        }
        double rate = (double) positives / TERMS;
        // 10 bits per term and 7 probes in 512-bit blocks: about 1 %; 2 % would mean broken probing
        assertTrue(rate < 0.02, "false-positive rate " + rate);
        assertTrue(positives > 0, "a Bloom filter of this size has some false positives; none means it is oversized");
    }

    @Test
    void sizeIsTenBitsPerTermRoundedToWholeBlocks() {
        assertEquals(1_250_048, new TermFilter(1_000_000).sizeBytes());
        assertEquals(64, new TermFilter(0).sizeBytes());
    }
}
