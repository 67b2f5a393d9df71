package io.sluice.query.client;

/**
 * The server's {@code ERR <code> <reason>} reply: the command was refused (a bad command, the rate
 * limit, a too large {@code sync} reply) or reading failed part-way.
 */
public final class QueryError extends QueryException {

    private final String code;
    private final String reason;

    /** The error a server's {@code ERR <code> <reason>} frame reports. */
    public QueryError(String code, String reason) {
        super("ERR " + code + " " + reason);
        this.code = code;
        this.reason = reason;
    }

    /** The error code, e.g. {@code BAD_RANGE} or {@code RATE_LIMITED} (see docs/query-protocol.md). */
    public String code() {
        return code;
    }

    /** What the server said is wrong. */
    public String reason() {
        return reason;
    }
}
