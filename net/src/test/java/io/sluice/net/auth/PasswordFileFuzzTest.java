package io.sluice.net.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes the password file reader (docs/reliability.md). Contract: a file either gives its users,
 * or is refused with {@link InvalidFileException} naming the file and line; nothing else escapes.
 * A file that reads can be written back ({@code bin/sluice passwd} rewrites it to add a user) and
 * reads back to the same users.
 */
class PasswordFileFuzzTest {
    private static Path dir;

    @FuzzTest(maxDuration = "5m")
    void readsOrRefuses(byte[] data) throws IOException, InvalidFileException {
        Path file = fuzzDir().resolve("passwd");
        Files.write(file, data);
        Map<String, ScramCredential> users;
        try {
            users = PasswordFile.read(file);
        } catch (InvalidFileException expected) {
            assertTrue(expected.getMessage().contains(file.toString()), expected.getMessage());
            return;
        }
        Path copy = fuzzDir().resolve("passwd.rewritten");
        PasswordFile.write(copy, users);
        Map<String, ScramCredential> again = PasswordFile.read(copy);
        assertEquals(users.keySet(), again.keySet());
        users.forEach((user, credential) -> assertEquals(credential.encode(), again.get(user).encode(), user));
    }

    private static Path fuzzDir() throws IOException {
        if (dir == null) {
            dir = Files.createTempDirectory("passwd-fuzz");
        }
        return dir;
    }

    @AfterAll
    static void removeDir() throws IOException {
        if (dir != null) {
            Files.deleteIfExists(dir.resolve("passwd"));
            Files.deleteIfExists(dir.resolve("passwd.rewritten"));
            Files.deleteIfExists(dir);
        }
    }
}
