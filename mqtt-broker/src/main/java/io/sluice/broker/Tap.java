package io.sluice.broker;

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
     */
    void capture(Message message);
}
