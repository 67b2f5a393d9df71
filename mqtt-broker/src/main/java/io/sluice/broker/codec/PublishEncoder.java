package io.sluice.broker.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.message.UserProperty;

import java.nio.charset.StandardCharsets;

/**
 * Encodes an outbound PUBLISH straight from a {@link Delivery}, computing the exact size first
 * so that the packet is allocated once and so that a packet over the client's Maximum Packet
 * Size is recognised before anything is written (MQTT 5 §3.1.2.11.4). Netty's MqttEncoder
 * would need an intermediate MqttPublishMessage and MqttProperties per subscriber; this is the
 * hottest write path of the broker, so it gets its own encoder.
 *
 * <pre>
 * fixed header   0x30 | DUP&lt;&lt;3 | QoS&lt;&lt;1 | RETAIN, Remaining Length (VBI)
 * topic name     u16 length + UTF-8 (empty when a known Topic Alias replaces it)
 * packet id      u16, only for QoS 1 and 2
 * properties     MQTT 5 only: VBI length, then 0x01 payload format, 0x02 message expiry,
 *                0x23 topic alias, 0x08 response topic, 0x09 correlation data,
 *                0x26 user properties, 0x0B subscription identifiers, 0x03 content type
 * payload        the message bytes, to the end of the packet
 * </pre>
 *
 * Stateless: one instance serves every connection.
 */
public final class PublishEncoder {
    private PublishEncoder() {
    }

    /** What varies per connection for one PUBLISH. */
    public record Header(int packetId, boolean dup, boolean mqtt5, int topicAlias, boolean sendTopic,
                         long expirySeconds) {
    }

    /** The exact size in bytes of the encoded packet. */
    public static int size(Delivery delivery, Header header) {
        int remaining = remainingLength(delivery, header);
        return 1 + vbiSize(remaining) + remaining;
    }

    /** Encodes the packet into a buffer from {@code alloc}; the caller owns and must write or release it. */
    public static ByteBuf encode(ByteBufAllocator alloc, Delivery delivery, Header header) {
        Message message = delivery.message();
        int remaining = remainingLength(delivery, header);
        ByteBuf buf = alloc.buffer(1 + vbiSize(remaining) + remaining);
        buf.writeByte(0x30 | (header.dup() ? 0x08 : 0) | (delivery.qos() << 1) | (delivery.retain() ? 1 : 0));
        writeVbi(buf, remaining);
        if (header.sendTopic()) {
            buf.writeShort(ByteBufUtil.utf8Bytes(message.topic()));
            ByteBufUtil.writeUtf8(buf, message.topic());
        } else {
            buf.writeShort(0);
        }
        if (delivery.qos() > 0) {
            buf.writeShort(header.packetId());
        }
        if (header.mqtt5()) {
            writeVbi(buf, propertiesLength(delivery, header));
            writeProperties(buf, delivery, header);
        }
        buf.writeBytes(message.payload());
        return buf;
    }

    private static int remainingLength(Delivery delivery, Header header) {
        Message message = delivery.message();
        int length = 2 + (header.sendTopic() ? ByteBufUtil.utf8Bytes(message.topic()) : 0);
        if (delivery.qos() > 0) {
            length += 2;
        }
        if (header.mqtt5()) {
            int properties = propertiesLength(delivery, header);
            length += vbiSize(properties) + properties;
        }
        return length + message.payload().length;
    }

    private static int propertiesLength(Delivery delivery, Header header) {
        MessageProperties p = delivery.message().properties();
        int length = 0;
        if (p.payloadFormat() >= 0) {
            length += 2;
        }
        if (header.expirySeconds() >= 0) {
            length += 5;
        }
        if (header.topicAlias() > 0) {
            length += 3;
        }
        if (p.responseTopic() != null) {
            length += 3 + ByteBufUtil.utf8Bytes(p.responseTopic());
        }
        if (p.correlationData() != null) {
            length += 3 + p.correlationData().length;
        }
        for (UserProperty user : p.userProperties()) {
            length += 5 + ByteBufUtil.utf8Bytes(user.name()) + ByteBufUtil.utf8Bytes(user.value());
        }
        for (int id : delivery.subscriptionIds()) {
            length += 1 + vbiSize(id);
        }
        if (p.contentType() != null) {
            length += 3 + ByteBufUtil.utf8Bytes(p.contentType());
        }
        return length;
    }

    private static void writeProperties(ByteBuf buf, Delivery delivery, Header header) {
        MessageProperties p = delivery.message().properties();
        if (p.payloadFormat() >= 0) {
            buf.writeByte(0x01).writeByte(p.payloadFormat());
        }
        if (header.expirySeconds() >= 0) {
            buf.writeByte(0x02).writeInt((int) header.expirySeconds());
        }
        if (header.topicAlias() > 0) {
            buf.writeByte(0x23).writeShort(header.topicAlias());
        }
        if (p.responseTopic() != null) {
            writeString(buf.writeByte(0x08), p.responseTopic());
        }
        if (p.correlationData() != null) {
            buf.writeByte(0x09).writeShort(p.correlationData().length).writeBytes(p.correlationData());
        }
        for (UserProperty user : p.userProperties()) {
            writeString(buf.writeByte(0x26), user.name());
            writeString(buf, user.value());
        }
        for (int id : delivery.subscriptionIds()) {
            writeVbi(buf.writeByte(0x0B), id);
        }
        if (p.contentType() != null) {
            writeString(buf.writeByte(0x03), p.contentType());
        }
    }

    private static void writeString(ByteBuf buf, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        buf.writeShort(bytes.length).writeBytes(bytes);
    }

    static int vbiSize(int value) {
        if (value < 128) {
            return 1;
        }
        if (value < 16_384) {
            return 2;
        }
        return value < 2_097_152 ? 3 : 4;
    }

    static void writeVbi(ByteBuf buf, int value) {
        int remaining = value;
        do {
            int digit = remaining & 0x7F;
            remaining >>>= 7;
            buf.writeByte(remaining > 0 ? digit | 0x80 : digit);
        } while (remaining > 0);
    }
}
