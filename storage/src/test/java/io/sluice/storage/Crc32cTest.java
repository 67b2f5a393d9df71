package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;

class Crc32cTest {

    private static int crc(byte[] bytes, int from, int to) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, from, to - from);
        return (int) crc.getValue();
    }

    @Test
    void theCrcOfTwoPartsCombinesIntoTheCrcOfTheWhole() {
        Random random = new Random(17);
        for (int round = 0; round < 200; round++) {
            byte[] bytes = new byte[random.nextInt(70_000)];
            random.nextBytes(bytes);
            int split = bytes.length == 0 ? 0 : random.nextInt(bytes.length + 1);
            assertEquals(crc(bytes, 0, bytes.length),
                    Crc32c.combine(crc(bytes, 0, split), crc(bytes, split, bytes.length), bytes.length - split),
                    "split at " + split + " of " + bytes.length);
        }
    }
}
