package io.sluice.broker.routing;

import io.sluice.broker.message.Message;

/**
 * The one thing the routing core knows of stream capture: a consumer of every authorised
 * PUBLISH whose topic matches {@link #filter()}. The server application adapts each exchange to
 * a tap, so routing never depends on the capture modules.
 */
public interface Tap {
    /** The MQTT topic filter, wildcards allowed, of the messages this tap wants. */
    String filter();

    /**
     * Takes a copy of one message. Called on the publisher's event loop after the message was
     * forwarded; it must not block, and what it does when it is full is its own business.
     *
     * @param ack the acknowledgement of the QoS 1/2 PUBLISH that carried the message, or null
     *            (QoS 0, or a message the broker made); a tap that promises durability
     *            {@link PublishAck#hold() holds} it until its copy is durable, then releases it
     */
    void capture(Message message, PublishAck ack);

    /** Whether this tap holds acknowledgements back until its copy is durable. */
    default boolean holdsAcks() {
        return false;
    }
}
