package io.sluice.net.auth;

import io.sluice.net.auth.Authenticator;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.net.auth.PasswordAuthenticator;
import io.sluice.net.auth.PasswordFile;
import io.sluice.net.auth.ScramCredential;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PasswordAuthenticatorTest {
    @TempDir
    Path dir;

    private static final ClientIdentity ANA = new ClientIdentity("c1", "ana", new InetSocketAddress("127.0.0.1", 1));

    private static byte[] bytes(String password) {
        return password.getBytes(StandardCharsets.UTF_8);
    }

    private Path passwords(String password) throws Exception {
        Path file = dir.resolve("passwd");
        PasswordFile.write(file, Map.of("ana", ScramCredential.create(password.toCharArray(), 4096)));
        return file;
    }

    @Test
    void aPasswordThatWasRightIsRecognisedAgainWithoutPbkdf2() throws Exception {
        PasswordAuthenticator auth = new PasswordAuthenticator(false, passwords("first"));

        assertEquals(Authenticator.Verdict.ACCEPTED, auth.authenticate(ANA, bytes("first")));
        assertEquals(Authenticator.Verdict.ACCEPTED, auth.authenticate(ANA, bytes("first")));
        assertEquals(1, auth.slowChecks());
    }

    @Test
    void wrongPasswordsAlwaysPayTheFullCheck() throws Exception {
        PasswordAuthenticator auth = new PasswordAuthenticator(false, passwords("first"));
        auth.authenticate(ANA, bytes("first"));

        assertEquals(Authenticator.Verdict.BAD_CREDENTIALS, auth.authenticate(ANA, bytes("guess")));
        assertEquals(Authenticator.Verdict.BAD_CREDENTIALS, auth.authenticate(ANA, bytes("guess")));
        assertEquals(3, auth.slowChecks());
    }

    @Test
    void aChangedPasswordInvalidatesWhatWasRemembered() throws Exception {
        PasswordAuthenticator auth = new PasswordAuthenticator(false, passwords("first"));
        auth.authenticate(ANA, bytes("first"));

        passwords("second");
        auth.reload();

        assertEquals(Authenticator.Verdict.BAD_CREDENTIALS, auth.authenticate(ANA, bytes("first")));
        assertEquals(Authenticator.Verdict.ACCEPTED, auth.authenticate(ANA, bytes("second")));
    }

    @Test
    void aRemovedUserIsRefusedAfterReload() throws Exception {
        Path file = passwords("first");
        PasswordAuthenticator auth = new PasswordAuthenticator(false, file);
        auth.authenticate(ANA, bytes("first"));

        PasswordFile.write(file, Map.of("bob", ScramCredential.create("bob".toCharArray(), 4096)));
        auth.reload();

        assertEquals(Authenticator.Verdict.BAD_CREDENTIALS, auth.authenticate(ANA, bytes("first")));
    }
}
