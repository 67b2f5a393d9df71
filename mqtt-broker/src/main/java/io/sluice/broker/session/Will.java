package io.sluice.broker.session;

import io.sluice.broker.message.Message;

/**
 * A will message with its Will Delay Interval (MQTT 5 §3.1.3.2.2): published when the network
 * connection ends without a normal DISCONNECT, after the delay or when the session ends,
 * whichever comes first.
 *
 * @param message      the message to publish, with its properties
 * @param delaySeconds the Will Delay Interval, 0 for "at once"
 */
public record Will(Message message, long delaySeconds) {

    /** The message as published at {@code nowMillis}: its expiry counts from then, not from CONNECT. */
    public Message messageAt(long nowMillis) {
        Message m = message;
        return new Message(m.topic(), m.payload(), m.qos(), m.retain(), m.properties(), m.publisherId(), nowMillis);
    }
}
