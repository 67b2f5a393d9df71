package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * Opens the file channel of every segment's {@code .log} file. It is a seam for fault injection:
 * a test in this package swaps {@link #opener} for one whose channels fail a write or an fsync,
 * which is how the log's offline state and its recovery from failed writes are tested without
 * breaking a disk. Production code never changes it.
 */
final class SegmentChannels {

    /** How a channel is opened. */
    @FunctionalInterface
    interface Opener {
        FileChannel open(Path file, OpenOption... options) throws IOException;
    }

    /** The JDK's own channels. */
    static final Opener SYSTEM = FileChannel::open;

    /** Swapped by tests only; read each time a segment opens its file. */
    static volatile Opener opener = SYSTEM;

    private SegmentChannels() {
    }

    static FileChannel open(Path file, OpenOption... options) throws IOException {
        return opener.open(file, options);
    }
}
