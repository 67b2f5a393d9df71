package io.sluice.bridges;

/**
 * An application message crossing a bridge, in either direction: a local PUBLISH on its way to a
 * remote, or a message from a remote on its way to local subscribers. The payload array is shared,
 * never modified.
 *
 * @param topic         the topic name on the side it comes from
 * @param payload       the payload bytes
 * @param qos           its QoS (0..2)
 * @param retain        its RETAIN flag
 * @param properties    MQTT 5 application properties, {@link MessageProperties#NONE} for 3.x
 * @param publisherId   the client id of the local publisher (for the Kafka key {@code clientid} and
 *                      for loop safety), or null for broker-made messages
 * @param createdMillis when it was accepted, epoch milliseconds: the origin of its expiry countdown
 */
public record BridgeMessage(String topic, byte[] payload, int qos, boolean retain, MessageProperties properties,
                            String publisherId, long createdMillis) {

    /** Whether its Message Expiry Interval has passed at {@code nowMillis}. */
    public boolean isExpired(long nowMillis) {
        return properties.expiryInterval() >= 0 && nowMillis - createdMillis >= properties.expiryInterval() * 1000L;
    }

    /** The expiry interval to send at {@code nowMillis}: what is left of it, or -1 if it never expires. */
    public long remainingExpirySeconds(long nowMillis) {
        if (properties.expiryInterval() < 0) {
            return -1;
        }
        return Math.max(0, properties.expiryInterval() - (nowMillis - createdMillis) / 1000L);
    }
}
