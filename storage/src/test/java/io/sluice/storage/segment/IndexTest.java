package io.sluice.storage.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexTest {
    @TempDir
    Path dir;

    @Test
    void offsetIndexLookupReturnsPositionOfLargestEntryAtOrBelowTheTarget() throws Exception {
        OffsetIndex index = new OffsetIndex(dir.resolve("a.index"), 50, 4096, true);
        index.append(55, 100);
        index.append(60, 200);
        index.append(70, 300);
        assertEquals(0, index.lookup(50));
        assertEquals(0, index.lookup(54));
        assertEquals(100, index.lookup(55));
        assertEquals(100, index.lookup(59));
        assertEquals(300, index.lookup(1_000));
        assertThrows(IllegalStateException.class, () -> index.append(65, 400), "offsets must increase");
        assertNull(index.check(301));
        assertNotNull(index.check(300), "an entry pointing past the log is implausible");
    }

    @Test
    void trimmedIndexReopensWithTheSameEntries() throws Exception {
        Path file = dir.resolve("b.index");
        OffsetIndex index = new OffsetIndex(file, 0, 4096, true);
        assertEquals(4096, Files.size(file), "preallocated while active");
        for (int i = 1; i <= 10; i++) {
            index.append(i * 10, i * 100);
        }
        index.trimToValidSize();
        assertEquals(80, Files.size(file));
        OffsetIndex reopened = new OffsetIndex(file, 0, 4096, false);
        assertEquals(10, reopened.entries());
        assertEquals(500, reopened.lookup(55));
        assertNull(reopened.check(1001));
    }

    @Test
    void garbageEntriesFailTheCheck() throws Exception {
        Path file = dir.resolve("c.index");
        OffsetIndex index = new OffsetIndex(file, 0, 4096, true);
        index.append(10, 100);
        index.append(20, 200);
        index.trimToValidSize();
        CrashFiles.appendGarbage(file, 16, new Random(1));
        OffsetIndex damaged = new OffsetIndex(file, 0, 4096, false);
        assertNotNull(damaged.check(10_000));
        CrashFiles.appendGarbage(file, 3, new Random(2));
        assertTrue(new OffsetIndex(file, 0, 4096, false).check(10_000).contains("not a multiple"));
    }

    @Test
    void timeIndexFindsTheLastEntryOlderThanTheTarget() throws Exception {
        TimeIndex index = new TimeIndex(dir.resolve("d.timeindex"), 1000, 4096, true);
        index.maybeAppend(500, 1040);
        index.maybeAppend(500, 1050);
        index.maybeAppend(400, 1060);
        index.maybeAppend(700, 1080);
        assertEquals(2, index.entries(), "only growing timestamps are recorded");
        assertEquals(1000, index.lookup(500), "records before 1040 may hold timestamp 500");
        assertEquals(1040, index.lookup(501));
        assertEquals(1040, index.lookup(700));
        assertEquals(1080, index.lookup(701));
        assertNull(index.check(1081));
        assertNotNull(index.check(1079));
    }
}
