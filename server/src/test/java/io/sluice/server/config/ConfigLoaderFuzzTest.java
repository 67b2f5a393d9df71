package io.sluice.server.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes the configuration loader (docs/reliability.md). Contract: a file either loads, or start-up
 * stops with one {@link ConfigError} naming the key (or the file, for a syntax error); no input makes
 * it fail with another exception, which would print a stack trace instead of the key to fix.
 */
class ConfigLoaderFuzzTest {
    private static Path dir;

    @FuzzTest(maxDuration = "5m")
    void loadsOrNamesTheKey(byte[] data) throws IOException {
        Path file = fuzzDir().resolve("sluice.conf");
        Files.write(file, data);
        try {
            SluiceConfig config = ConfigLoader.load(file);
            assertNotNull(config.listeners());
        } catch (ConfigError expected) {
            assertFalse(expected.path() == null || expected.path().isEmpty(), expected.getMessage());
        }
    }

    private static Path fuzzDir() throws IOException {
        if (dir == null) {
            dir = Files.createTempDirectory("config-fuzz");
        }
        return dir;
    }

    @AfterAll
    static void removeDir() throws IOException {
        if (dir != null) {
            Files.deleteIfExists(dir.resolve("sluice.conf"));
            Files.deleteIfExists(dir);
        }
    }
}
