package io.sluice.broker.persistence;

/** A broker-state record that cannot be decoded; the loader skips it and counts it. */
final class CorruptStateException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CorruptStateException(String message) {
        super(message);
    }
}
