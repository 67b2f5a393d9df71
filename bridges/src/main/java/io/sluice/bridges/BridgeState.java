package io.sluice.bridges;

import java.util.Locale;

/**
 * Where a bridge's connection to its remote stands. A bridge goes Connecting → Connected, or
 * Connecting → Backoff → Connecting while the remote is away; once connected it is Draining while
 * its backlog holds messages the remote has not acknowledged, Connected when it has caught up.
 */
public enum BridgeState {
    /** A connection attempt is under way. */
    CONNECTING,
    /** Connected and caught up: every stored message has been acknowledged. */
    CONNECTED,
    /** Connected and sending the backlog, as fast as the remote's window allows. */
    DRAINING,
    /** Waiting before the next attempt (exponential backoff with jitter, up to {@code backoff_max}). */
    BACKOFF,
    /** Stopped by the server, or disabled ({@code enable = false}). */
    STOPPED;

    /** The lower-case name used in {@code $SYS}, metrics and logs. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether a connection to the remote is up. */
    public boolean isConnected() {
        return this == CONNECTED || this == DRAINING;
    }
}
