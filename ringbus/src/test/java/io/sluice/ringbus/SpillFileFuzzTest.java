package io.sluice.ringbus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes the spill file reader (docs/reliability.md). Contract: a file either reads back as a
 * batch that agrees with its header, or is refused with {@link CorruptSpillFileException}; nothing
 * else escapes, and no field makes it allocate more than the file holds. Inputs whose first byte is
 * odd get a correct body length and CRC written over them, so the fuzzer reaches the record decoder
 * instead of stopping at the checksum.
 */
class SpillFileFuzzTest {
    private static Path dir;

    @FuzzTest(maxDuration = "5m")
    void readsOrRefuses(byte[] data) throws IOException {
        boolean forge = data.length > 0 && (data[0] & 1) == 1;
        byte[] bytes = forge ? withValidFraming(data) : data;
        Path file = spillDir().resolve(SpillFile.fileName(0));
        Files.write(file, bytes);
        Batch.Contents contents;
        try {
            contents = SpillFile.read(file);
        } catch (CorruptSpillFileException expected) {
            assertTrue(expected.getMessage().contains(file.toString()), expected.getMessage());
            return;
        }
        SpilledBatch header = SpillFile.readHeader(file);
        assertEquals(header.count(), contents.size());
        assertEquals(header.firstOffset(), contents.offsets()[0]);
        assertEquals(header.lastOffset(), contents.offsets()[contents.size() - 1]);
    }

    /** The input with the body length (header field) and CRC-32C trailer a writer would have put there. */
    private static byte[] withValidFraming(byte[] data) {
        int length = Math.max(data.length, SpillFile.HEADER_LENGTH) + SpillFile.TRAILER_LENGTH;
        ByteBuffer buffer = ByteBuffer.allocate(length);
        buffer.put(data);
        buffer.putInt(0, SpillFile.MAGIC);
        buffer.putShort(4, SpillFile.VERSION);
        buffer.putLong(SpillFile.BODY_LENGTH_OFFSET, length - SpillFile.HEADER_LENGTH - SpillFile.TRAILER_LENGTH);
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), 0, length - SpillFile.TRAILER_LENGTH);
        buffer.putInt(length - SpillFile.TRAILER_LENGTH, (int) crc.getValue());
        return buffer.array();
    }

    private static Path spillDir() throws IOException {
        if (dir == null) {
            dir = Files.createTempDirectory("spill-fuzz");
        }
        return dir;
    }

    @AfterAll
    static void removeDir() throws IOException {
        if (dir != null) {
            Files.deleteIfExists(dir.resolve(SpillFile.fileName(0)));
            Files.deleteIfExists(dir);
        }
    }
}
