package io.sluice.net.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Remembers, per user, the last password that passed the slow PBKDF2 check, so a device that
 * reconnects with the same credentials costs the event loop one HMAC instead of thousands of
 * PBKDF2 rounds (1 to 2 ms at the default 4096). What is kept is an HMAC-SHA-256 of the password
 * under a key drawn at start-up, never the password, and only for passwords that were right;
 * wrong ones always pay the full price. An entry is valid only for the very verifier it was checked against,
 * so a changed or removed user (a reloaded password file) is checked slowly again.
 *
 * <p>Bounded by the number of users in the file; thread-safe.
 */
final class VerifiedPasswords {
    private final byte[] key = new byte[32];
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicLong slowChecks = new AtomicLong();

    private record Entry(ScramCredential credential, byte[] mac) {
    }

    VerifiedPasswords() {
        new SecureRandom().nextBytes(key);
    }

    /** Whether {@code password} matches {@code credential}, the verifier {@code user} has now. */
    boolean verify(String user, ScramCredential credential, byte[] password) {
        byte[] mac = ScramCredential.hmac(key, password);
        Entry entry = entries.get(user);
        if (entry != null && entry.credential() == credential && MessageDigest.isEqual(entry.mac(), mac)) {
            return true;
        }
        slowChecks.incrementAndGet();
        if (!credential.verify(password)) {
            return false;
        }
        entries.put(user, new Entry(credential, mac));
        return true;
    }

    /** Forgets users that are gone from the file, so removed users do not stay in memory. */
    void retainUsers(Set<String> users) {
        entries.keySet().retainAll(users);
    }

    /** Full PBKDF2 checks made so far. */
    long slowChecks() {
        return slowChecks.get();
    }
}
