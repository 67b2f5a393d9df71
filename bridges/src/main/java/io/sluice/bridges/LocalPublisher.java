package io.sluice.bridges;

import io.sluice.net.auth.ClientIdentity;

/**
 * How a bridge publishes what it receives from a remote into the local broker: as a local client's
 * PUBLISH is, after the same checks (topic validity, {@code $SYS}, the ACL for {@code publisher}).
 * The server implements it over the broker; this module never sees the broker.
 */
public interface LocalPublisher {

    /** What became of one message. */
    enum Outcome {
        /** Routed to local subscribers (and taps). */
        ACCEPTED,
        /** The ACL does not let the bridge publish to the topic. */
        DENIED,
        /** The topic is not a valid topic name here (wildcards, too many levels, {@code $SYS}). */
        INVALID_TOPIC
    }

    /**
     * Publishes {@code message} as {@code publisher}. {@code done} is settled exactly once, on any
     * thread: run when the message is as durable as a local QoS 1/2 publish is before its
     * acknowledgement (at once for QoS 0 and for a message that was not accepted), and the bridge
     * acknowledges the remote then; or {@linkplain io.sluice.storage.Receipt#refuse refused} when
     * something that had to store it could not, and the bridge does not acknowledge it.
     */
    Outcome publish(ClientIdentity publisher, BridgeMessage message, Runnable done);
}
