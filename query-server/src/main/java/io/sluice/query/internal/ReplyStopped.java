package io.sluice.query.internal;

/**
 * Thrown through a plugin's decode loop to stop a reply early. Carries no stack trace: it is a
 * routine signal (a client went away), not a failure to debug.
 */
public final class ReplyStopped extends RuntimeException {

    /** Why the reply stopped. */
    public enum Reason {
        /** The client's connection closed. */
        PEER_LEFT,
        /** The client did not take a frame within {@code send_timeout}. */
        TIMED_OUT,
        /** The server is stopping. */
        STOPPED,
        /** A {@code sync} reply outgrew {@code max_sync_bytes}. */
        TOO_LARGE,
        /** A data frame would look like an ERR or EOF frame. */
        AMBIGUOUS
    }

    private final Reason reason;

    public ReplyStopped(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    /** The reason a failed send gives. */
    public static ReplyStopped of(PairEndpoint.Outcome outcome) {
        return switch (outcome) {
            case PEER_LEFT -> new ReplyStopped(Reason.PEER_LEFT, "the client's connection closed");
            case TIMED_OUT -> new ReplyStopped(Reason.TIMED_OUT, "the client did not read within send_timeout");
            case STOPPED -> new ReplyStopped(Reason.STOPPED, "the server is stopping");
            case SENT -> throw new IllegalArgumentException("a sent frame is no reason to stop");
        };
    }
}
