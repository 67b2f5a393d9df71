package io.sluice.bridges.mqtt;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.BridgePath;
import io.sluice.bridges.MessageProperties;
import io.sluice.bridges.UserProperty;

/**
 * Builds the PUBLISH packets a bridge sends, and knows their encoded size before they are encoded,
 * so a message larger than the remote's Maximum Packet Size is refused instead of breaking the
 * connection (MQTT 5 §3.1.2.11.4: a client must not send a larger packet).
 */
final class PublishPacket {
    /** The largest packet MQTT can express: a four-byte Remaining Length. */
    static final int PROTOCOL_MAXIMUM = 268_435_455;

    private PublishPacket() {
    }

    /**
     * The PUBLISH for {@code message} to {@code topic} ({@code ""} when only the alias travels).
     *
     * @param alias     topic alias to send, 0 for none
     * @param packetId  0 for QoS 0
     * @param pathNode  the node id added as one more {@link BridgePath#PROPERTY} (MQTT 5), or null
     * @param nowMillis for the remaining expiry interval
     */
    static MqttPublishMessage build(String topic, BridgeMessage message, boolean mqtt5, int alias, int packetId,
                                    boolean dup, String pathNode, long nowMillis) {
        MqttProperties properties = mqtt5 ? properties(message, alias, pathNode, nowMillis)
                : MqttProperties.NO_PROPERTIES;
        MqttFixedHeader fixed = new MqttFixedHeader(MqttMessageType.PUBLISH, dup, MqttQoS.valueOf(message.qos()),
                message.retain(), 0);
        return new MqttPublishMessage(fixed, new MqttPublishVariableHeader(topic, packetId, properties),
                Unpooled.wrappedBuffer(message.payload()));
    }

    private static MqttProperties properties(BridgeMessage message, int alias, String pathNode, long nowMillis) {
        MessageProperties p = message.properties();
        if (p.isEmpty() && alias == 0 && pathNode == null) {
            return MqttProperties.NO_PROPERTIES;
        }
        MqttProperties properties = new MqttProperties();
        if (p.payloadFormat() >= 0) {
            properties.add(new MqttProperties.IntegerProperty(
                    MqttProperties.MqttPropertyType.PAYLOAD_FORMAT_INDICATOR.value(), p.payloadFormat()));
        }
        if (p.expiryInterval() >= 0) {
            properties.add(new MqttProperties.IntegerProperty(
                    MqttProperties.MqttPropertyType.PUBLICATION_EXPIRY_INTERVAL.value(),
                    (int) message.remainingExpirySeconds(nowMillis)));
        }
        if (p.contentType() != null) {
            properties.add(new MqttProperties.StringProperty(MqttProperties.MqttPropertyType.CONTENT_TYPE.value(),
                    p.contentType()));
        }
        if (p.responseTopic() != null) {
            properties.add(new MqttProperties.StringProperty(MqttProperties.MqttPropertyType.RESPONSE_TOPIC.value(),
                    p.responseTopic()));
        }
        if (p.correlationData() != null) {
            properties.add(new MqttProperties.BinaryProperty(
                    MqttProperties.MqttPropertyType.CORRELATION_DATA.value(), p.correlationData()));
        }
        if (!p.userProperties().isEmpty() || pathNode != null) {
            MqttProperties.UserProperties users = new MqttProperties.UserProperties();
            for (UserProperty user : p.userProperties()) {
                users.add(user.name(), user.value());
            }
            if (pathNode != null) {
                users.add(BridgePath.PROPERTY, pathNode);
            }
            properties.add(users);
        }
        if (alias != 0) {
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.MqttPropertyType.TOPIC_ALIAS.value(),
                    alias));
        }
        return properties;
    }

    /** The encoded size in bytes of the PUBLISH {@link #build} makes with the same arguments. */
    static long size(String topic, BridgeMessage message, boolean mqtt5, int alias, String pathNode) {
        long remaining = 2L + utf8Length(topic) + (message.qos() > 0 ? 2 : 0) + message.payload().length;
        if (mqtt5) {
            int properties = propertiesLength(message.properties(), alias)
                    + (pathNode == null ? 0 : 5 + utf8Length(BridgePath.PROPERTY) + utf8Length(pathNode));
            remaining += varIntLength(properties) + properties;
        }
        return 1 + varIntLength(remaining) + remaining;
    }

    private static int propertiesLength(MessageProperties p, int alias) {
        int length = 0;
        if (p.payloadFormat() >= 0) {
            length += 2;
        }
        if (p.expiryInterval() >= 0) {
            length += 5;
        }
        if (p.contentType() != null) {
            length += 3 + utf8Length(p.contentType());
        }
        if (p.responseTopic() != null) {
            length += 3 + utf8Length(p.responseTopic());
        }
        if (p.correlationData() != null) {
            length += 3 + p.correlationData().length;
        }
        for (UserProperty user : p.userProperties()) {
            length += 5 + utf8Length(user.name()) + utf8Length(user.value());
        }
        if (alias != 0) {
            length += 3;
        }
        return length;
    }

    private static int utf8Length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static int varIntLength(long value) {
        return value < 128 ? 1 : value < 16_384 ? 2 : value < 2_097_152 ? 3 : 4;
    }
}
