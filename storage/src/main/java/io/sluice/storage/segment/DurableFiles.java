package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * File operations that survive a power cut, for small metadata files (checkpoints, shard
 * settings). {@link #writeAtomically} writes a temporary file {@code <name>.tmp}, fsyncs it, renames
 * it over the target and fsyncs the directory, so a reader finds either the old or the new content,
 * never a mix or nothing.
 */
public final class DurableFiles {
    /** Suffix of the temporary file; a leftover one (crash before the rename) is deleted at open. */
    public static final String TEMP_SUFFIX = ".tmp";

    private DurableFiles() {
    }

    public static void writeAtomically(Path target, ByteBuffer content) throws IOException {
        Path temp = target.resolveSibling(target.getFileName() + TEMP_SUFFIX);
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (content.hasRemaining()) {
                channel.write(content);
            }
            channel.force(true);
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        fsyncDirectory(target.toAbsolutePath().getParent());
    }

    /** Makes creations, renames and deletions inside {@code dir} durable. */
    public static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
