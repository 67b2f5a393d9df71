package io.sluice.examples.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;

/** MQTT 3.1.1 packets as bytes: just what the load generator sends. */
final class Packets {
    private Packets() {
    }

    static ByteBuf connect(String clientId, int keepAliveSeconds) {
        return connect(clientId, keepAliveSeconds, true);
    }

    /** MQTT 3.1.1 CONNECT; {@code cleanSession} false asks for a persistent session. */
    static ByteBuf connect(String clientId, int keepAliveSeconds, boolean cleanSession) {
        byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        ByteBuf body = Unpooled.buffer();
        writeString(body, "MQTT".getBytes(StandardCharsets.US_ASCII));
        body.writeByte(4).writeByte(cleanSession ? 0x02 : 0x00).writeShort(keepAliveSeconds);
        writeString(body, id);
        return frame(0x10, body);
    }

    static ByteBuf subscribe(int packetId, String filter, int qos) {
        ByteBuf body = Unpooled.buffer();
        body.writeShort(packetId);
        writeString(body, filter.getBytes(StandardCharsets.UTF_8));
        body.writeByte(qos);
        return frame(0x82, body);
    }

    /** A PUBLISH template; for QoS 1 each send patches its own packet id at {@link #packetIdOffset}. */
    static ByteBuf publish(String topic, int qos, byte[] payload) {
        return publish(topic, qos, false, payload);
    }

    static ByteBuf publish(String topic, int qos, boolean retain, byte[] payload) {
        ByteBuf body = Unpooled.buffer();
        writeString(body, topic.getBytes(StandardCharsets.UTF_8));
        if (qos > 0) {
            body.writeShort(1);
        }
        body.writeBytes(payload);
        return frame(0x30 | (qos << 1) | (retain ? 1 : 0), body);
    }

    static ByteBuf pubAck(int packetId) {
        return Unpooled.buffer(4).writeByte(0x40).writeByte(2).writeShort(packetId);
    }

    static ByteBuf disconnect() {
        return Unpooled.wrappedBuffer(new byte[] {(byte) 0xE0, 0});
    }

    /** Where the packet id sits in a QoS 1 PUBLISH built by {@link #publish}: after the fixed header and topic. */
    static int packetIdOffset(ByteBuf publish, String topic, int payloadLength) {
        int topicLength = topic.getBytes(StandardCharsets.UTF_8).length;
        int bodyLength = 2 + topicLength + 2 + payloadLength;
        int fixedHeaderLength = publish.readableBytes() - bodyLength;
        return fixedHeaderLength + 2 + topicLength;
    }

    private static void writeString(ByteBuf buf, byte[] bytes) {
        buf.writeShort(bytes.length).writeBytes(bytes);
    }

    private static ByteBuf frame(int firstByte, ByteBuf body) {
        ByteBuf out = Unpooled.buffer(body.readableBytes() + 5);
        out.writeByte(firstByte);
        int remaining = body.readableBytes();
        do {
            int digit = remaining & 0x7F;
            remaining >>>= 7;
            out.writeByte(remaining > 0 ? digit | 0x80 : digit);
        } while (remaining > 0);
        out.writeBytes(body);
        body.release();
        return out;
    }
}
