package io.sluice.storage;

import java.nio.file.Path;

/**
 * Bytes below the high watermark failed their checksum or could not be parsed: damage on disk, not
 * a torn tail (a torn tail is cut at open and never reaches a reader).
 */
public final class CorruptRecordException extends StorageException {
    private final Path file;
    private final long position;

    public CorruptRecordException(Path file, long position, String detail) {
        super("corrupt record batch in " + file + " at byte position " + position + ": " + detail);
        this.file = file;
        this.position = position;
    }

    public Path file() {
        return file;
    }

    public long position() {
        return position;
    }
}
