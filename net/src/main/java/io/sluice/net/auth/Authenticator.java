package io.sluice.net.auth;

/** Decides whether a CONNECT's credentials let the client in, and runs MQTT 5 enhanced authentication. */
public interface Authenticator {
    /** Lets everyone in; offers no enhanced authentication. */
    Authenticator ALLOW_ALL = (identity, password) -> Verdict.ACCEPTED;

    /** The outcome of checking a CONNECT's user name and password. */
    enum Verdict {
        ACCEPTED,
        /** A user name or password that does not match: CONNACK 0x86 (MQTT 5) or 4 (3.1.1). */
        BAD_CREDENTIALS,
        /** No credentials where they are required: CONNACK 0x87 (MQTT 5) or 5 (3.1.1). */
        NOT_AUTHORIZED
    }

    /** Checks the user name (in {@code identity}, null if none) and password (null if none). */
    Verdict authenticate(ClientIdentity identity, byte[] password);

    /**
     * Starts an MQTT 5 enhanced authentication (§4.12) with {@code method}, the CONNECT's
     * Authentication Method; returns null if this authenticator does not offer that method.
     */
    default AuthExchange startExchange(String method, ClientIdentity identity) {
        return null;
    }
}
