package io.sluice.query.client;

/** No frame arrived within the timeout (after one reconnect and resend when nothing of the reply had come yet). */
public final class QueryTimeoutException extends QueryException {

    private final boolean connected;

    /** @param connected whether a connection to the server was ever made */
    public QueryTimeoutException(String message, boolean connected) {
        super(message);
        this.connected = connected;
    }

    /** Whether a connection to the server was ever made; false means nothing answers at the URL. */
    public boolean connected() {
        return connected;
    }
}
