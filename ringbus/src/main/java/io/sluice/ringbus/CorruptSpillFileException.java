package io.sluice.ringbus;

import java.io.IOException;
import java.nio.file.Path;

/** A spill file whose bytes do not follow {@link SpillFile}'s format; the message names file and byte position. */
public final class CorruptSpillFileException extends IOException {

    private final Path path;
    private final long position;

    public CorruptSpillFileException(Path path, long position, String problem) {
        super("corrupt spill file " + path + " at byte " + position + ": " + problem);
        this.path = path;
        this.position = position;
    }

    public Path path() {
        return path;
    }

    /** Where in the file the problem was found. */
    public long position() {
        return position;
    }
}
