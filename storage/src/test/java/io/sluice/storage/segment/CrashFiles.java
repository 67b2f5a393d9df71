package io.sluice.storage.segment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Puts log files into the states a crash or a damaged disk leaves: a copy of a live log directory
 * is what {@code kill -9} leaves (the page cache survives), and bytes can be flipped, cut or added.
 */
final class CrashFiles {
    private CrashFiles() {
    }

    /** Copies every file of a live log (not its lock) into {@code target}: the state after kill -9. */
    static Path snapshot(Path logDir, Path target) {
        try {
            Files.createDirectories(target);
            try (Stream<Path> files = Files.list(logDir)) {
                for (Path file : files.toList()) {
                    if (!file.getFileName().toString().equals(".lock")) {
                        copyIfStillThere(file, target.resolve(file.getFileName()));
                    }
                }
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void copyIfStillThere(Path file, Path target) throws IOException {
        try {
            Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
        } catch (NoSuchFileException e) {
            // a checkpoint's temporary file, renamed while we listed: the crash would not have kept it either
        }
    }

    static void flipByte(Path file, long position) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x5A));
            one.rewind();
            channel.write(one, position);
        }
    }

    static void appendGarbage(Path file, int bytes, Random random) throws IOException {
        byte[] garbage = new byte[bytes];
        random.nextBytes(garbage);
        Files.write(file, garbage, StandardOpenOption.APPEND);
    }

    static void truncate(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }

    static List<Path> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    static Path segmentFile(Path dir, long base, String suffix) {
        return dir.resolve(Segment.fileName(base, suffix));
    }
}
