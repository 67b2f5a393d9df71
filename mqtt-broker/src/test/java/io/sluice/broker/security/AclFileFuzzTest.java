package io.sluice.broker.security;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.net.auth.InvalidFileException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes the ACL file reader (docs/reliability.md). Contract: a file either gives its rules, or is
 * refused with {@link InvalidFileException} naming the file; a bad file never throws anything else,
 * so a reload keeps the previous rules instead of failing in an unexpected way.
 */
class AclFileFuzzTest {
    private static Path dir;

    @FuzzTest(maxDuration = "5m")
    void readsOrRefuses(byte[] data) throws IOException {
        Path file = fuzzDir().resolve("acl.conf");
        Files.write(file, data);
        List<AclRule> rules;
        try {
            rules = AclFile.read(file);
        } catch (InvalidFileException expected) {
            assertTrue(expected.getMessage().contains(file.toString()), expected.getMessage());
            return;
        }
        assertTrue(rules.stream().allMatch(rule -> rule != null), "no null rule");
    }

    private static Path fuzzDir() throws IOException {
        if (dir == null) {
            dir = Files.createTempDirectory("acl-fuzz");
        }
        return dir;
    }

    @AfterAll
    static void removeDir() throws IOException {
        if (dir != null) {
            Files.deleteIfExists(dir.resolve("acl.conf"));
            Files.deleteIfExists(dir);
        }
    }
}
