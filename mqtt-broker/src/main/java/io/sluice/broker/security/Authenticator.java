package io.sluice.broker.security;

/** Decides whether a CONNECT's credentials let the client in. */
public interface Authenticator {
    /** Lets everyone in. */
    Authenticator ALLOW_ALL = (identity, password) -> true;

    /** Returns true if the client may connect with this user name (in {@code identity}) and password. */
    boolean authenticate(ClientIdentity identity, byte[] password);
}
