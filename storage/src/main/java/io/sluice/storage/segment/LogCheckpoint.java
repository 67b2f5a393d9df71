package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The checkpoint file of one log ({@value #FILE_NAME}): where recovery starts, where the log starts,
 * and how far the cleaner got. Written with {@link DurableFiles#writeAtomically}.
 *
 * <h2>Layout (33 bytes, big-endian)</h2>
 * <pre>
 *  offset  width  field
 *   0      4      magic              0x534C4350 ("SLCP")
 *   4      1      version            1
 *   5      8      recoveryPoint      every segment wholly below it was fsynced with its indexes
 *  13      8      logStartOffset     first readable offset; segments wholly below it are deleted at open
 *  21      8      cleanerCheckpoint  first offset the cleaner has not compacted (compacted logs)
 *  29      4      crc                CRC-32C of bytes [0, 29)
 * </pre>
 * The recovery point advances when a rolled segment has been fsynced, so after a crash only the
 * segments at or past it are scanned. The log start offset is what {@code deleteRecordsBefore} and
 * retention move; persisting it before deleting files is what keeps a reopened log from
 * resurrecting trimmed records.
 */
record LogCheckpoint(long recoveryPoint, long logStartOffset, long cleanerCheckpoint) {
    static final String FILE_NAME = "log.checkpoint";
    static final int MAGIC = 0x534C4350;
    static final byte VERSION = 1;
    static final int SIZE = 33;
    private static final int CRC_OFFSET = 29;

    static final LogCheckpoint EMPTY = new LogCheckpoint(0, 0, 0);

    void write(Path dir) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(SIZE);
        buffer.putInt(MAGIC).put(VERSION).putLong(recoveryPoint).putLong(logStartOffset).putLong(cleanerCheckpoint);
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), 0, CRC_OFFSET);
        buffer.putInt((int) crc.getValue());
        buffer.flip();
        DurableFiles.writeAtomically(dir.resolve(FILE_NAME), buffer);
    }

    /**
     * Reads the checkpoint; {@link #EMPTY} when there is none (a new log).
     *
     * @throws IOException when the file exists but is damaged; the message names the file and the fault
     */
    static LogCheckpoint read(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return EMPTY;
        }
        byte[] bytes = Files.readAllBytes(file);
        if (bytes.length != SIZE) {
            throw new IOException("checkpoint " + file + " has " + bytes.length + " bytes, expected " + SIZE);
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, CRC_OFFSET);
        if (buffer.getInt(0) != MAGIC || buffer.get(4) != VERSION || buffer.getInt(CRC_OFFSET) != (int) crc.getValue()) {
            throw new IOException("checkpoint " + file + " fails its magic, version or CRC-32C check");
        }
        return new LogCheckpoint(buffer.getLong(5), buffer.getLong(13), buffer.getLong(21));
    }
}
