package io.sluice.query;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/** Finds and breaks an exchange's files on purpose. */
final class ParquetFiles {

    private ParquetFiles() {
    }

    /** The published Parquet files of a directory, by name (oldest first). */
    static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".parquet")).sorted().toList();
        }
    }

    /** Every regular file under a directory (none if it does not exist). */
    static List<Path> listAll(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    /** Replaces a file's bytes with random ones of the same length. */
    static void overwriteWithGarbage(Path file) throws IOException {
        byte[] garbage = new byte[(int) Files.size(file)];
        new Random(7).nextBytes(garbage);
        Files.write(file, garbage);
    }
}
