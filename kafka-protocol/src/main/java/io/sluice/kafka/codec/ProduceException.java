package io.sluice.kafka.codec;

import org.apache.kafka.common.protocol.Errors;

/** Why a produced batch is refused: the Kafka error its partition is answered with, and a message. */
public final class ProduceException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Errors error;

    public ProduceException(Errors error, String message) {
        super(message);
        this.error = error;
    }

    public Errors error() {
        return error;
    }
}
