package io.sluice.kafka.api;

import java.net.SocketAddress;

import io.sluice.net.auth.AuthExchange;

/**
 * What one Kafka connection has established: its peer address and, after SASL, who it is. A
 * connection handles one request at a time, on whichever request thread, so the fields are only
 * written by the request being handled; they are volatile so the next request sees them.
 */
public final class Session {
    private final SocketAddress address;
    private volatile String username;
    private volatile boolean authenticated;
    private volatile String mechanism;
    private volatile AuthExchange scram;

    public Session(SocketAddress address) {
        this.address = address;
    }

    public SocketAddress address() {
        return address;
    }

    /** The authenticated user, or null for an anonymous connection. */
    public String username() {
        return username;
    }

    /** Whether SASL authentication succeeded on this connection. */
    public boolean isAuthenticated() {
        return authenticated;
    }

    /** Marks the connection as authenticated as {@code user}. */
    public void authenticated(String user) {
        this.username = user;
        this.authenticated = true;
        this.scram = null;
    }

    /** The SASL mechanism chosen by SaslHandshake, or null before it. */
    public String mechanism() {
        return mechanism;
    }

    public void mechanism(String chosen) {
        this.mechanism = chosen;
    }

    /** The SCRAM exchange in progress, or null. */
    public AuthExchange scram() {
        return scram;
    }

    public void scram(AuthExchange exchange) {
        this.scram = exchange;
    }
}
