package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttProperties;
import io.sluice.broker.codec.InboundProperties;

/**
 * What a client accepts from the broker, from the properties of its CONNECT (MQTT 5 §3.1.2.11):
 * MQTT 3.x clients state none of it and get {@link #MQTT3}.
 *
 * @param receiveMaximum     QoS 1/2 PUBLISHes it takes unacknowledged at once (Receive Maximum)
 * @param maximumPacketSize  the largest packet it takes, in bytes (Maximum Packet Size)
 * @param problemInformation whether it wants reason strings (Request Problem Information)
 * @param topicAliasMaximum  topic aliases the broker may set up towards it (Topic Alias Maximum)
 */
record ClientLimits(int receiveMaximum, long maximumPacketSize, boolean problemInformation, int topicAliasMaximum) {
    /** What MQTT 3.x implies: no limits the protocol can express, no topic aliases. */
    static final ClientLimits MQTT3 = new ClientLimits(65535, Long.MAX_VALUE, true, 0);

    /** Reads the limits of an MQTT 5 CONNECT; a value the protocol forbids is a protocol error. */
    static ClientLimits read(MqttProperties props) throws ProtocolViolation {
        long receiveMaximum = InboundProperties.integer(props, MqttProperties.RECEIVE_MAXIMUM, 65535);
        long maxPacketSize = InboundProperties.integer(props, MqttProperties.MAXIMUM_PACKET_SIZE, Long.MAX_VALUE);
        long problemInformation = InboundProperties.integer(props, MqttProperties.REQUEST_PROBLEM_INFORMATION, 1);
        if (receiveMaximum == 0) {
            throw ProtocolViolation.protocolError("Receive Maximum of 0");
        }
        if (maxPacketSize == 0) {
            throw ProtocolViolation.protocolError("Maximum Packet Size of 0");
        }
        if (problemInformation > 1) {
            throw ProtocolViolation.protocolError("Request Problem Information of " + problemInformation);
        }
        long topicAliasMaximum = InboundProperties.integer(props, MqttProperties.TOPIC_ALIAS_MAXIMUM, 0);
        return new ClientLimits((int) receiveMaximum, maxPacketSize, problemInformation == 1, (int) topicAliasMaximum);
    }
}
