package io.sluice.ringbus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillFileTest {

    private static Batch.Contents batch(int rows, long firstOffset) {
        Batch batch = new Batch(rows, rows, Long.MAX_VALUE);
        for (int i = 0; i < rows; i++) {
            batch.append(1_700_000_000_000L + i / 2, firstOffset + i, "sensors/\u00e9/" + i, ("payload-" + i).getBytes(StandardCharsets.UTF_8), 0);
        }
        return batch.contents();
    }

    @Test
    void documentedExampleHasTheDocumentedLength(@TempDir Path dir) throws IOException {
        Batch batch = new Batch(1, 1, 100);
        batch.append(1_700_000_000_000L, 7, "a/b", new byte[] {1, 2}, 0);
        SpilledBatch file = SpillFile.write(dir, batch.contents());
        assertEquals(83, Files.size(file.path()));
        assertEquals("00000000000000000007.spill", file.path().getFileName().toString());
    }

    @Test
    void roundTripKeepsEveryField(@TempDir Path dir) throws IOException {
        Batch.Contents written = batch(50, 4096);
        SpilledBatch file = SpillFile.write(dir, written);
        assertEquals(file, SpillFile.readHeader(file.path()));
        Batch.Contents read = SpillFile.read(file.path());
        assertEquals(50, read.size());
        for (int i = 0; i < 50; i++) {
            assertEquals(written.ts()[i], read.ts()[i]);
            assertEquals(written.offsets()[i], read.offsets()[i]);
            assertEquals(written.topics()[i], read.topics()[i]);
            assertArrayEquals(written.payloads()[i], read.payloads()[i]);
        }
    }

    @Test
    void anyFlippedByteIsDetectedWithItsPosition(@TempDir Path dir) throws IOException {
        SpilledBatch file = SpillFile.write(dir, batch(20, 0));
        byte[] good = Files.readAllBytes(file.path());
        Random random = new Random(42);
        for (int trial = 0; trial < 200; trial++) {
            byte[] bad = good.clone();
            int at = random.nextInt(bad.length);
            bad[at] ^= (byte) (1 + random.nextInt(255));
            Files.write(file.path(), bad);
            CorruptSpillFileException e = assertThrows(CorruptSpillFileException.class, () -> SpillFile.read(file.path()),
                    "flip at byte " + at);
            assertTrue(e.getMessage().contains(file.path().toString()), e.getMessage());
        }
    }

    @Test
    void truncatedFileIsCorrupt(@TempDir Path dir) throws IOException {
        SpilledBatch file = SpillFile.write(dir, batch(5, 0));
        byte[] good = Files.readAllBytes(file.path());
        for (int length : new int[] {0, 10, SpillFile.HEADER_LENGTH, good.length - 1}) {
            Files.write(file.path(), java.util.Arrays.copyOf(good, length));
            assertThrows(CorruptSpillFileException.class, () -> SpillFile.read(file.path()), "length " + length);
        }
    }

    @Test
    void openDeletesHalfWrittenFilesAndListQuarantinesUnreadableOnes(@TempDir Path dir) throws IOException {
        SpilledBatch second = SpillFile.write(dir, batch(3, 100));
        SpilledBatch first = SpillFile.write(dir, batch(3, 10));
        Path temp = dir.resolve(".00000000000000000200.spill.tmp");
        Files.write(temp, new byte[] {1, 2, 3});
        Path garbage = dir.resolve(SpillFile.fileName(300));
        Files.write(garbage, new byte[100]);
        SpillDirectory spill = SpillDirectory.open(dir, "ex");
        assertFalse(Files.exists(temp));
        assertEquals(List.of(first, second), spill.list());
        assertFalse(Files.exists(garbage));
        assertTrue(Files.exists(dir.resolve(SpillFile.fileName(300) + SpillDirectory.CORRUPT_SUFFIX)));
    }
}
