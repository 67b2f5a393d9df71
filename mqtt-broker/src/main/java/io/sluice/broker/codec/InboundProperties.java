package io.sluice.broker.codec;

import io.netty.handler.codec.mqtt.MqttProperties;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.message.UserProperty;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the MQTT 5 properties that netty-codec-mqtt decoded into the shapes the broker keeps.
 * Stateless.
 */
public final class InboundProperties {
    private InboundProperties() {
    }

    /** The integer property {@code id}, or {@code absent} when the packet did not carry it. */
    public static long integer(MqttProperties properties, int id, long absent) {
        MqttProperties.MqttProperty<?> property = properties.getProperty(id);
        if (property == null) {
            return absent;
        }
        return ((Integer) property.value()) & 0xFFFFFFFFL;
    }

    /** The string property {@code id}, or null. */
    public static String string(MqttProperties properties, int id) {
        MqttProperties.MqttProperty<?> property = properties.getProperty(id);
        return property == null ? null : (String) property.value();
    }

    /** The binary property {@code id}, or null. */
    public static byte[] binary(MqttProperties properties, int id) {
        MqttProperties.MqttProperty<?> property = properties.getProperty(id);
        return property == null ? null : (byte[]) property.value();
    }

    /** How many times property {@code id} occurs (some may appear once only). */
    public static int count(MqttProperties properties, int id) {
        return properties.getProperties(id).size();
    }

    /** The application-message properties of a PUBLISH or a will (MQTT 5 §3.3.2.3, §3.1.3.2). */
    public static MessageProperties message(MqttProperties properties) {
        if (properties.isEmpty()) {
            return MessageProperties.NONE;
        }
        return new MessageProperties(
                (int) integer(properties, MqttProperties.PAYLOAD_FORMAT_INDICATOR, -1),
                integer(properties, MqttProperties.PUBLICATION_EXPIRY_INTERVAL, -1),
                string(properties, MqttProperties.CONTENT_TYPE),
                string(properties, MqttProperties.RESPONSE_TOPIC),
                binary(properties, MqttProperties.CORRELATION_DATA),
                userProperties(properties));
    }

    @SuppressWarnings("rawtypes") // netty declares getProperties with a raw element type
    private static List<UserProperty> userProperties(MqttProperties properties) {
        List<? extends MqttProperties.MqttProperty> all = properties.getProperties(MqttProperties.USER_PROPERTY);
        if (all.isEmpty()) {
            return List.of();
        }
        List<UserProperty> result = new ArrayList<>(all.size());
        for (MqttProperties.MqttProperty<?> property : all) {
            if (property instanceof MqttProperties.UserProperty user) {
                result.add(new UserProperty(user.value().key, user.value().value));
            } else if (property instanceof MqttProperties.UserProperties users) {
                users.value().forEach(pair -> result.add(new UserProperty(pair.key, pair.value)));
            }
        }
        return result;
    }
}
