package io.sluice.net.auth;

import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

/**
 * What the broker keeps of one user's password: the SCRAM-SHA-256 verifier of RFC 5802/7677,
 * never the password itself. {@code SaltedPassword = PBKDF2-HMAC-SHA256(password, salt,
 * iterations)}, {@code StoredKey = SHA-256(HMAC(SaltedPassword, "Client Key"))} and
 * {@code ServerKey = HMAC(SaltedPassword, "Server Key")}. The same verifier checks a plain
 * CONNECT password (derive StoredKey again and compare in constant time) and drives an MQTT 5
 * SCRAM-SHA-256 exchange, so one password file serves both.
 *
 * <p>Text form, as in RFC 5803 and PostgreSQL:
 * {@code SCRAM-SHA-256$<iterations>:<base64 salt>$<base64 StoredKey>:<base64 ServerKey>}.
 *
 * @param salt       random salt, 16 bytes when made here
 * @param iterations PBKDF2 iterations (RFC 7677 asks for at least 4096)
 * @param storedKey  SHA-256 of the client key, 32 bytes
 * @param serverKey  the server key, 32 bytes
 */
public record ScramCredential(byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {
    /** The prefix of the text form, also the MQTT 5 Authentication Method. */
    public static final String MECHANISM = "SCRAM-SHA-256";
    /** Iterations used when none are asked for: RFC 7677's minimum, a few milliseconds per CONNECT. */
    public static final int DEFAULT_ITERATIONS = 4096;
    private static final int MIN_ITERATIONS = 1000;
    private static final int MAX_ITERATIONS = 10_000_000;
    private static final int KEY_BYTES = 32;

    public ScramCredential {
        if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException("iterations must be between " + MIN_ITERATIONS + " and "
                    + MAX_ITERATIONS + ", got " + iterations);
        }
        if (salt.length == 0 || storedKey.length != KEY_BYTES || serverKey.length != KEY_BYTES) {
            throw new IllegalArgumentException("a SCRAM-SHA-256 verifier needs a salt and two 32-byte keys");
        }
    }

    /** A new verifier of {@code password} with a fresh random salt. */
    public static ScramCredential create(char[] password, int iterations) {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return derive(password, salt, iterations);
    }

    /** The verifier of {@code password} with this salt and iteration count. */
    public static ScramCredential derive(char[] password, byte[] salt, int iterations) {
        byte[] salted = saltedPassword(password, salt, iterations);
        try {
            return new ScramCredential(salt.clone(), iterations, storedKey(clientKey(salted)),
                    hmac(salted, "Server Key"));
        } finally {
            Arrays.fill(salted, (byte) 0);
        }
    }

    /** Parses the text form; throws IllegalArgumentException saying which part is wrong. */
    public static ScramCredential parse(String text) {
        String prefix = MECHANISM + "$";
        if (!text.startsWith(prefix)) {
            throw new IllegalArgumentException("expected " + prefix + "<iterations>:<salt>$<StoredKey>:<ServerKey>");
        }
        String[] halves = text.substring(prefix.length()).split("\\$", -1);
        if (halves.length != 2) {
            throw new IllegalArgumentException("expected two '$'-separated parts after " + prefix);
        }
        String[] params = halves[0].split(":", -1);
        String[] keys = halves[1].split(":", -1);
        if (params.length != 2 || keys.length != 2) {
            throw new IllegalArgumentException("expected <iterations>:<salt>$<StoredKey>:<ServerKey>");
        }
        int iterations;
        try {
            iterations = Integer.parseInt(params[0]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("iterations must be a number, got '" + params[0] + "'");
        }
        Base64.Decoder b64 = Base64.getDecoder();
        try {
            return new ScramCredential(b64.decode(params[1]), iterations, b64.decode(keys[0]), b64.decode(keys[1]));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad salt or key: " + e.getMessage(), e);
        }
    }

    /** The text form, for the password file. */
    public String encode() {
        Base64.Encoder b64 = Base64.getEncoder();
        return MECHANISM + "$" + iterations + ":" + b64.encodeToString(salt) + "$"
                + b64.encodeToString(storedKey) + ":" + b64.encodeToString(serverKey);
    }

    /**
     * Whether {@code password} (as sent in CONNECT, UTF-8) is the one this verifier was made from.
     * The comparison takes the same time wherever the keys differ.
     */
    public boolean verify(byte[] password) {
        char[] chars = utf8(password);
        if (chars == null || chars.length == 0) {
            return false;
        }
        byte[] salted = saltedPassword(chars, salt, iterations);
        Arrays.fill(chars, '\0');
        try {
            return MessageDigest.isEqual(storedKey, storedKey(clientKey(salted)));
        } finally {
            Arrays.fill(salted, (byte) 0);
        }
    }

    /** Strict UTF-8 decoding; null if the bytes are not UTF-8 (such a password can never match). */
    private static char[] utf8(byte[] bytes) {
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            char[] out = new char[chars.remaining()];
            chars.get(out);
            return out;
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** Hi() of RFC 5802: PBKDF2 with HMAC-SHA-256 and one block of output. */
    static byte[] saltedPassword(char[] password, byte[] salt, int iterations) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, KEY_BYTES * 8);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks PBKDF2WithHmacSHA256", e);
        } finally {
            spec.clearPassword();
        }
    }

    static byte[] clientKey(byte[] saltedPassword) {
        return hmac(saltedPassword, "Client Key");
    }

    static byte[] storedKey(byte[] clientKey) {
        return sha256(clientKey);
    }

    static byte[] hmac(byte[] key, String data) {
        return hmac(key, data.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks HmacSHA256", e);
        }
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks SHA-256", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScramCredential other && iterations == other.iterations
                && Arrays.equals(salt, other.salt) && Arrays.equals(storedKey, other.storedKey)
                && Arrays.equals(serverKey, other.serverKey);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(storedKey);
    }

    /** Never prints the keys. */
    @Override
    public String toString() {
        return MECHANISM + " verifier (" + iterations + " iterations)";
    }
}
