package io.sluice.server.http;

import io.sluice.net.auth.Authenticator;
import io.sluice.net.auth.ClientIdentity;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * HTTP Basic authentication of the API: NanoMQ's single {@code http_server.username}/{@code password},
 * and the password-file users named in {@code http_server.users}, checked against their PBKDF2
 * verifiers by the broker's authenticator.
 *
 * <p>The configured user and password are compared as SHA-256 digests with
 * {@link MessageDigest#isEqual}, so the time taken says nothing about how much of a guess was right.
 * A user that is not in {@code users} still pays a full verification. Every failure is counted, and
 * the answer to it is held back longer the more failures an address has made in a row (up to
 * {@link #MAX_DELAY_MILLIS}), which makes guessing slow without blocking any thread.
 * Thread-safe.
 */
public final class BasicAuth {
    /** The longest an answer to a failed login is held back. */
    static final long MAX_DELAY_MILLIS = 3_000;
    private static final long DELAY_STEP_MILLIS = 250;
    /** Addresses whose failures are remembered; beyond it the table starts afresh (an attack on memory gains nothing). */
    private static final int MAX_TRACKED = 10_000;

    /** The outcome of checking a request's credentials. */
    public enum Outcome { ACCEPTED, MISSING, WRONG }

    private final String username;
    private final byte[] expected;
    private final Set<String> users;
    private final Authenticator passwords;
    private final AtomicLong failures = new AtomicLong();
    private final ConcurrentHashMap<String, Integer> failuresInARow = new ConcurrentHashMap<>();

    /**
     * @param username  NanoMQ's {@code http_server.username}, or null
     * @param password  its password, or null
     * @param users     password-file users who may use the API
     * @param passwords the authenticator over {@code auth.password_file}; may be null when {@code users} is empty
     */
    public BasicAuth(String username, String password, List<String> users, Authenticator passwords) {
        this.username = username;
        this.expected = username == null ? null : digest(username + ":" + password);
        this.users = Set.copyOf(users);
        this.passwords = passwords;
    }

    /** Whether any credentials are configured; without them nothing is asked. */
    public boolean required() {
        return username != null || !users.isEmpty();
    }

    /**
     * Checks an {@code Authorization} header value (null when absent).
     *
     * @return the outcome; on {@link Outcome#ACCEPTED} {@link #userOf} names the user
     */
    public Outcome check(String authorization, InetSocketAddress from) {
        Credentials given = Credentials.parse(authorization);
        if (given == null) {
            return Outcome.MISSING;
        }
        boolean ok = matchesConfigured(given) || matchesPasswordFile(given, from);
        String host = host(from);
        if (ok) {
            failuresInARow.remove(host);
            return Outcome.ACCEPTED;
        }
        failures.incrementAndGet();
        if (failuresInARow.size() >= MAX_TRACKED) {
            failuresInARow.clear();
        }
        failuresInARow.merge(host, 1, Integer::sum);
        return Outcome.WRONG;
    }

    /** The user name of a header that was accepted. */
    public static String userOf(String authorization) {
        Credentials given = Credentials.parse(authorization);
        return given == null ? null : given.user();
    }

    /** How long to hold back the answer to a failed login from {@code from}. */
    public long delayMillis(InetSocketAddress from) {
        int inARow = failuresInARow.getOrDefault(host(from), 0);
        return Math.min(MAX_DELAY_MILLIS, DELAY_STEP_MILLIS * inARow);
    }

    /** Failed logins since start. */
    public long failures() {
        return failures.get();
    }

    private boolean matchesConfigured(Credentials given) {
        if (expected == null) {
            return false;
        }
        return MessageDigest.isEqual(expected, digest(given.user() + ":" + given.password()));
    }

    private boolean matchesPasswordFile(Credentials given, InetSocketAddress from) {
        if (users.isEmpty() || passwords == null) {
            return false;
        }
        byte[] password = given.password().getBytes(StandardCharsets.UTF_8);
        boolean verified = passwords.authenticate(new ClientIdentity("http-api", given.user(), from), password)
                == Authenticator.Verdict.ACCEPTED;
        return verified && users.contains(given.user()); // verified first: every name costs the same
    }

    private static String host(InetSocketAddress from) {
        if (from == null) {
            return "?";
        }
        return from.getAddress() == null ? from.getHostString() : from.getAddress().getHostAddress();
    }

    private static byte[] digest(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** The user and password of a {@code Basic} header. */
    private record Credentials(String user, String password) {
        static Credentials parse(String header) {
            if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
                return null;
            }
            String decoded;
            try {
                decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return null;
            }
            int colon = decoded.indexOf(':');
            if (colon <= 0) {
                return null;
            }
            return new Credentials(decoded.substring(0, colon), decoded.substring(colon + 1));
        }
    }
}
