package io.sluice.storage.memory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import io.sluice.storage.StorageException;
import io.sluice.storage.segment.DurableFiles;

/**
 * The offset a memory shard continues at after a restart ({@value #FILE} in the shard's directory,
 * 12 bytes: the offset as int64 and a CRC-32C of it, both big-endian). While the shard runs the
 * file holds a ceiling reserved ahead of the end offset, so a crash skips offsets rather than
 * reusing them; a clean close writes the exact end offset.
 */
final class NextOffsetFile {
    static final String FILE = "next-offset";
    private static final int SIZE = Long.BYTES + Integer.BYTES;

    private final Path file;

    NextOffsetFile(Path shardDir) {
        this.file = shardDir.resolve(FILE);
    }

    /** The stored offset, or 0 for a shard that never wrote one. */
    long read() {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            throw new StorageException("reading " + file + " failed: " + e.getMessage(), e);
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (bytes.length != SIZE || buffer.getInt(Long.BYTES) != crc(buffer.getLong(0))) {
            throw new StorageException(file + " is damaged (" + bytes.length + " bytes, expected " + SIZE
                    + " with a matching CRC): the memory shard cannot tell which offsets it already gave out");
        }
        return buffer.getLong(0);
    }

    /** Durably replaces the stored offset. */
    void write(long offset) {
        ByteBuffer buffer = ByteBuffer.allocate(SIZE).putLong(offset).putInt(crc(offset)).flip();
        try {
            DurableFiles.writeAtomically(file, buffer);
        } catch (IOException e) {
            throw new StorageException("writing " + file + " failed: " + e.getMessage(), e);
        }
    }

    private static int crc(long offset) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(Long.BYTES).putLong(0, offset));
        return (int) crc.getValue();
    }
}
