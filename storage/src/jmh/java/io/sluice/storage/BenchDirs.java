package io.sluice.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary adapter directories of the engine benchmarks, under {@code -Dsluice.bench.dir} (default the temp dir). */
final class BenchDirs {
    private BenchDirs() {
    }

    static Path create(String prefix) throws IOException {
        Path parent = Path.of(System.getProperty("sluice.bench.dir", System.getProperty("java.io.tmpdir")));
        return Files.createTempDirectory(parent, prefix);
    }

    static void deleteIfExists(Path dir) throws IOException {
        if (Files.exists(dir)) {
            delete(dir);
        }
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
