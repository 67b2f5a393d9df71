package io.sluice.net.auth;

import io.sluice.net.auth.InvalidFileException;
import io.sluice.net.auth.PasswordFile;
import io.sluice.net.auth.ScramCredential;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PasswordFileTest {
    @TempDir
    Path dir;

    @Test
    void writtenUsersReadBackInOrderWithoutAnyPlainPassword() throws Exception {
        Path file = dir.resolve("passwd");
        Map<String, ScramCredential> users = new LinkedHashMap<>();
        users.put("zoe", ScramCredential.create("zoe-secret".toCharArray(), 4096));
        users.put("adam", ScramCredential.create("adam-secret".toCharArray(), 4096));

        PasswordFile.write(file, users);

        assertEquals(users, PasswordFile.read(file));
        assertEquals(java.util.List.of("zoe", "adam"), java.util.List.copyOf(PasswordFile.read(file).keySet()));
        String text = Files.readString(file);
        assertFalse(text.contains("secret"), text);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void aRewriteReplacesTheFileAtomicallyAndKeepsItsPermissions() throws Exception {
        Path file = dir.resolve("passwd");
        PasswordFile.write(file, Map.of("a", ScramCredential.create("x".toCharArray(), 4096)));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        Object before = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey();

        PasswordFile.write(file, Map.of("b", ScramCredential.create("y".toCharArray(), 4096)));

        Object after = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        assertFalse(before.equals(after), "a new file was renamed into place");
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(java.util.Set.of("b"), PasswordFile.read(file).keySet());
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file is left behind");
        }
    }

    @Test
    void commentsAndBlankLinesAreIgnoredAndErrorsNameTheLine() throws Exception {
        String good = "alice:" + ScramCredential.create("pw".toCharArray(), 4096).encode();
        Path file = dir.resolve("passwd");
        Files.writeString(file, "# users\n\n" + good + "\n", StandardCharsets.UTF_8);
        assertEquals(java.util.Set.of("alice"), PasswordFile.read(file).keySet());

        Files.writeString(file, "# users\n" + good + "\nbob:hunter2\n");
        InvalidFileException plain = assertThrows(InvalidFileException.class, () -> PasswordFile.read(file));
        assertEquals(3, plain.line());
        assertTrue(plain.getMessage().contains("bob"), plain.getMessage());

        Files.writeString(file, good + "\n" + good + "\n");
        InvalidFileException twice = assertThrows(InvalidFileException.class, () -> PasswordFile.read(file));
        assertEquals(2, twice.line());
        assertTrue(twice.getMessage().contains("twice"), twice.getMessage());

        assertThrows(InvalidFileException.class, () -> PasswordFile.read(dir.resolve("missing")));
    }

    @Test
    void userNamesThatCannotBeStoredAreRefused() {
        for (String bad : new String[] {"", "a:b", "#admin", " padded", "tab\there"}) {
            assertThrows(IllegalArgumentException.class, () -> PasswordFile.checkUserName(bad), bad);
        }
        PasswordFile.checkUserName("élodie@plant-7");
    }
}
