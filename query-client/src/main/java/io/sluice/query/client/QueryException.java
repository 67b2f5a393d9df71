package io.sluice.query.client;

/** A query that could not be completed: a broken connection, a malformed reply, or (subclasses) an ERR reply or a timeout. */
public class QueryException extends RuntimeException {

    /** An exception with a message saying what failed and where. */
    public QueryException(String message) {
        super(message);
    }

    /** An exception with a message and the failure underneath. */
    public QueryException(String message, Throwable cause) {
        super(message, cause);
    }
}
