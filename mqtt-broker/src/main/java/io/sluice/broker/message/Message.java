package io.sluice.broker.message;

/**
 * An application message as the broker keeps it once a PUBLISH (or a will) has been accepted:
 * the payload is a private copy taken once at ingress, so one instance is shared, read-only, by
 * every queue, inflight window, retained store and capture tap that holds it.
 *
 * @param topic         the topic name it was published to
 * @param payload       the payload bytes; never modified after construction
 * @param qos           the QoS it was published with (0..2)
 * @param retain        the RETAIN flag as published
 * @param properties    MQTT 5 application properties, {@link MessageProperties#NONE} for 3.x
 * @param publisherId   client id of the publisher, for No Local; null for broker-made messages
 * @param createdMillis wall-clock time it was accepted, the origin of its expiry countdown
 */
public record Message(String topic, byte[] payload, int qos, boolean retain, MessageProperties properties,
                      String publisherId, long createdMillis) {

    /** Whether the Message Expiry Interval has passed at {@code nowMillis}. */
    public boolean isExpired(long nowMillis) {
        return properties.hasExpiry() && nowMillis - createdMillis >= properties.expiryInterval() * 1000L;
    }

    /**
     * The expiry interval to forward at {@code nowMillis}: what was received minus the time the
     * message has waited (MQTT 5 §3.3.2.3.3), or -1 if it never expires.
     */
    public long remainingExpirySeconds(long nowMillis) {
        if (!properties.hasExpiry()) {
            return -1;
        }
        long waitedSeconds = (nowMillis - createdMillis) / 1000L;
        return Math.max(0, properties.expiryInterval() - waitedSeconds);
    }

    /** A copy with another RETAIN flag; the payload array is shared, not copied. */
    public Message withRetain(boolean newRetain) {
        return newRetain == retain ? this
                : new Message(topic, payload, qos, newRetain, properties, publisherId, createdMillis);
    }

    /** Bytes this message holds in memory, roughly; what queue byte limits count. */
    public int weight() {
        return payload.length + topic.length() + 64;
    }
}
