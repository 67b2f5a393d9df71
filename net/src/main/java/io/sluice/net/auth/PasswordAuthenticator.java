package io.sluice.net.auth;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * Authentication from {@code auth { allow_anonymous, password_file }}. A client without a user
 * name is let in only if anonymous access is allowed; a client with one must match its verifier
 * in the {@link PasswordFile}, by plain password in CONNECT or by SCRAM-SHA-256 enhanced
 * authentication. An unknown user costs as much time as a wrong password, so timing does not
 * tell which users exist. A password that was right once is recognised again cheaply
 * ({@link VerifiedPasswords}), so reconnecting devices do not stall an event loop.
 *
 * <p>Thread-safe: every event loop authenticates concurrently; {@link #reload()} swaps the user
 * table atomically, and a file that does not parse leaves the previous table in place.
 */
public final class PasswordAuthenticator implements Authenticator {
    private final boolean allowAnonymous;
    private final Path file;
    private final byte[] decoyKey = new byte[32];
    private final ScramCredential decoy;
    private final VerifiedPasswords verified = new VerifiedPasswords();
    private volatile Map<String, ScramCredential> users = Map.of();

    /**
     * @param allowAnonymous {@code auth.allow_anonymous}
     * @param file           {@code auth.password_file}, or null for none (then only anonymous clients get in)
     */
    public PasswordAuthenticator(boolean allowAnonymous, Path file) throws InvalidFileException {
        this.allowAnonymous = allowAnonymous;
        this.file = file;
        new SecureRandom().nextBytes(decoyKey);
        // Verified against when the user is unknown, so that it costs what a wrong password costs.
        this.decoy = ScramCredential.create(Base64.getEncoder().encodeToString(decoyKey).toCharArray(),
                ScramCredential.DEFAULT_ITERATIONS);
        if (file != null) {
            reload();
        }
    }

    /** Reads the password file again; on failure the previous users stay and the exception says why. */
    public void reload() throws InvalidFileException {
        if (file != null) {
            users = PasswordFile.read(file);
            verified.retainUsers(users.keySet());
        }
    }

    /** The password file, or null. */
    public Path file() {
        return file;
    }

    /** Users currently known. */
    public int userCount() {
        return users.size();
    }

    @Override
    public Verdict authenticate(ClientIdentity identity, byte[] password) {
        String user = identity.username();
        if (user == null) {
            return allowAnonymous ? Verdict.ACCEPTED : Verdict.NOT_AUTHORIZED;
        }
        if (file == null) {
            return allowAnonymous ? Verdict.ACCEPTED : Verdict.BAD_CREDENTIALS;
        }
        ScramCredential credential = users.get(user);
        if (password == null) {
            return Verdict.BAD_CREDENTIALS;
        }
        if (credential == null) {
            decoy.verify(password); // same cost as a wrong password
            return Verdict.BAD_CREDENTIALS;
        }
        return verified.verify(user, credential, password) ? Verdict.ACCEPTED : Verdict.BAD_CREDENTIALS;
    }

    /** Full PBKDF2 checks of CONNECT passwords made so far (for tests and diagnostics). */
    long slowChecks() {
        return verified.slowChecks();
    }

    @Override
    public AuthExchange startExchange(String method, ClientIdentity identity) {
        if (file == null || !ScramCredential.MECHANISM.equals(method)) {
            return null;
        }
        Map<String, ScramCredential> current = users;
        return new ScramExchange(current::get, decoyKey, identity.username());
    }
}
