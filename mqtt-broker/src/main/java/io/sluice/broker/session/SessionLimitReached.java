package io.sluice.broker.session;

/**
 * A new session would exceed {@code mqtt.max_sessions} or {@code mqtt.max_sessions_per_address}
 * and no offline session could make room.
 */
public final class SessionLimitReached extends Exception {
    private static final long serialVersionUID = 1L;

    SessionLimitReached(String message) {
        super(message, null, false, false);
    }
}
