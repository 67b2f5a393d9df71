package io.sluice.streams;

/**
 * A stream operation that cannot be done, with its reason: the caller maps the reason onto its
 * protocol's error (Kafka's TOPIC_ALREADY_EXISTS, UNKNOWN_TOPIC_OR_PARTITION, POLICY_VIOLATION...).
 */
public final class StreamException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why. */
    public enum Reason {
        /** A stream of that name exists already. */
        EXISTS,
        /** No stream of that name exists. */
        UNKNOWN,
        /** The stream is defined in the configuration file, so only the file can remove it. */
        CONFIGURED
    }

    private final Reason reason;
    private final String stream;

    public StreamException(Reason reason, String stream, String message) {
        super("stream '" + stream + "': " + message);
        this.reason = reason;
        this.stream = stream;
    }

    public Reason reason() {
        return reason;
    }

    public String stream() {
        return stream;
    }
}
