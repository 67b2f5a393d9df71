package io.sluice.net.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The password file ({@code auth.password_file}): users and the SCRAM-SHA-256 verifiers of their
 * passwords, written by {@code bin/sluice passwd}.
 *
 * <h2>Format</h2>
 * UTF-8 text, one user per line:
 * <pre>
 * # comment
 * alice:SCRAM-SHA-256$4096:&lt;base64 salt&gt;$&lt;base64 StoredKey&gt;:&lt;base64 ServerKey&gt;
 * </pre>
 * The user name runs up to the first {@code ':'} (so it cannot contain one) and is compared
 * exactly, case included; the rest is a {@link ScramCredential} in its text form. Blank lines and
 * lines starting with {@code #} are ignored. A user listed twice, a name {@link #checkUserName}
 * refuses (empty, with control characters, or with blanks before the {@code ':'}) or a verifier
 * that does not parse makes the whole file invalid, reported with its line. No password is stored:
 * the verifier is derived with PBKDF2-HMAC-SHA256 and a random salt per user.
 *
 * <p>Updates are atomic: the new contents go to a temporary file in the same directory, which is
 * then renamed over the old one, so a reader (the broker reloading it) sees either the old file
 * or the new one, never half of one. A new file is readable by its owner only.
 */
public final class PasswordFile {
    private PasswordFile() {
    }

    /** Reads {@code file}; the map keeps the file's order. */
    public static Map<String, ScramCredential> read(Path file) throws InvalidFileException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InvalidFileException(file, 0, "cannot read the password file: " + e, e);
        }
        Map<String, ScramCredential> users = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new InvalidFileException(file, i + 1, "expected <user>:" + ScramCredential.MECHANISM + "$...");
            }
            String user = line.substring(0, colon);
            try {
                checkUserName(user); // what reads must be writable again: bin/sluice passwd rewrites the file
            } catch (IllegalArgumentException e) {
                throw new InvalidFileException(file, i + 1, e.getMessage());
            }
            ScramCredential credential;
            try {
                credential = ScramCredential.parse(line.substring(colon + 1));
            } catch (IllegalArgumentException e) {
                throw new InvalidFileException(file, i + 1, "user '" + user + "': " + e.getMessage());
            }
            if (users.putIfAbsent(user, credential) != null) {
                throw new InvalidFileException(file, i + 1, "user '" + user + "' is listed twice");
            }
        }
        return Collections.unmodifiableMap(users);
    }

    /** Checks that {@code user} can be written to the file; throws IllegalArgumentException if not. */
    public static void checkUserName(String user) {
        if (user.isEmpty() || user.indexOf(':') >= 0 || user.startsWith("#") || !user.strip().equals(user)
                || user.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("a user name must be non-empty, must not contain ':' or control"
                    + " characters, start with '#' or begin or end with a space, got '" + user + "'");
        }
    }

    /** Writes {@code users} to {@code file} atomically (see the class comment). */
    public static void write(Path file, Map<String, ScramCredential> users) throws IOException {
        StringBuilder text = new StringBuilder("# Sluice password file: <user>:<SCRAM-SHA-256 verifier>."
                + " Edit with: bin/sluice passwd FILE USER\n");
        users.forEach((user, credential) -> {
            checkUserName(user);
            text.append(user).append(':').append(credential.encode()).append('\n');
        });
        Path absolute = file.toAbsolutePath();
        Path dir = absolute.getParent();
        Path temp = Files.createTempFile(dir, "." + absolute.getFileName(), ".tmp");
        try {
            Files.writeString(temp, text, StandardCharsets.UTF_8);
            restrictPermissions(temp, absolute);
            move(temp, absolute);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Keeps an existing file's permissions; a new file gets rw------- where the file system has them. */
    private static void restrictPermissions(Path temp, Path target) throws IOException {
        try {
            Set<PosixFilePermission> permissions = Files.exists(target) ? Files.getPosixFilePermissions(target)
                    : PosixFilePermissions.fromString("rw-------");
            Files.setPosixFilePermissions(temp, permissions);
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the directory's defaults apply
        }
    }

    private static void move(Path temp, Path target) throws IOException {
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException | FileAlreadyExistsException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
