package io.sluice.broker.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.util.AttributeKey;
import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.message.UserProperty;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PublishEncoderTest {
    private static final MessageProperties ALL = new MessageProperties(1, 60, "text/plain", "reply/here",
            new byte[] {1, 2, 3}, List.of(new UserProperty("k", "v"), new UserProperty("k", "w")));

    private static MqttPublishMessage roundTrip(MqttVersion version, ByteBuf encoded) {
        EmbeddedChannel channel = new EmbeddedChannel(new MqttDecoder(1 << 20));
        channel.attr(AttributeKey.<MqttVersion>valueOf("NETTY_CODEC_MQTT_VERSION")).set(version);
        channel.writeInbound(encoded);
        MqttPublishMessage decoded = channel.readInbound();
        assertTrue(decoded.decoderResult().isSuccess(), () -> String.valueOf(decoded.decoderResult().cause()));
        channel.finishAndReleaseAll();
        return decoded;
    }

    @Test
    void mqtt5PublishCarriesEveryPropertyAndTheExactSizeIsKnownBeforeEncoding() {
        Message message = new Message("plant/line/1", "payload".getBytes(StandardCharsets.UTF_8), 2, true, ALL,
                "c", 0);
        Delivery delivery = new Delivery(message, 1, true, new int[] {7, 300}, null);
        PublishEncoder.Header header = new PublishEncoder.Header(42, true, true, 5, true, 59);

        ByteBuf encoded = PublishEncoder.encode(ByteBufAllocator.DEFAULT, delivery, header);
        assertEquals(PublishEncoder.size(delivery, header), encoded.readableBytes());
        MqttPublishMessage decoded = roundTrip(MqttVersion.MQTT_5, encoded);
        try {
            assertEquals("plant/line/1", decoded.variableHeader().topicName());
            assertEquals(42, decoded.variableHeader().packetId());
            assertEquals(1, decoded.fixedHeader().qosLevel().value());
            assertTrue(decoded.fixedHeader().isDup());
            assertTrue(decoded.fixedHeader().isRetain());
            MqttProperties p = decoded.variableHeader().properties();
            assertEquals(1, p.getProperty(MqttProperties.PAYLOAD_FORMAT_INDICATOR).value());
            assertEquals(59, p.getProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL).value());
            assertEquals(5, p.getProperty(MqttProperties.TOPIC_ALIAS).value());
            assertEquals("text/plain", p.getProperty(MqttProperties.CONTENT_TYPE).value());
            assertEquals("reply/here", p.getProperty(MqttProperties.RESPONSE_TOPIC).value());
            assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) p.getProperty(MqttProperties.CORRELATION_DATA).value());
            assertEquals(2, p.getProperties(MqttProperties.USER_PROPERTY).size());
            assertEquals(List.of(7, 300), p.getProperties(MqttProperties.SUBSCRIPTION_IDENTIFIER).stream()
                    .map(MqttProperties.MqttProperty::value).toList());
            assertArrayEquals("payload".getBytes(StandardCharsets.UTF_8), ByteBufUtil.getBytes(decoded.content()));
        } finally {
            decoded.release();
        }
    }

    @Test
    void mqtt311PublishHasNoPropertiesAndQos0HasNoPacketId() {
        Message message = new Message("a/b", new byte[300], 0, false, ALL, "c", 0);
        Delivery delivery = Delivery.of(message, 0, false);
        PublishEncoder.Header header = new PublishEncoder.Header(0, false, false, 0, true, -1);

        ByteBuf encoded = PublishEncoder.encode(ByteBufAllocator.DEFAULT, delivery, header);
        assertEquals(PublishEncoder.size(delivery, header), encoded.readableBytes());
        assertEquals(1 + 2 + 2 + 3 + 300, encoded.readableBytes(), "fixed header with a 2-byte length");
        MqttPublishMessage decoded = roundTrip(MqttVersion.MQTT_3_1_1, encoded);
        try {
            assertEquals("a/b", decoded.variableHeader().topicName());
            assertFalse(decoded.fixedHeader().isRetain());
            assertEquals(300, decoded.content().readableBytes());
        } finally {
            decoded.release();
        }
    }

    @Test
    void anAliasedPublishSendsAnEmptyTopic() {
        Message message = new Message("long/topic/name", new byte[] {9}, 0, false, MessageProperties.NONE, "c", 0);
        PublishEncoder.Header header = new PublishEncoder.Header(0, false, true, 3, false, -1);
        ByteBuf encoded = PublishEncoder.encode(ByteBufAllocator.DEFAULT, Delivery.of(message, 0, false), header);
        MqttPublishMessage decoded = roundTrip(MqttVersion.MQTT_5, encoded);
        try {
            assertEquals("", decoded.variableHeader().topicName());
            assertEquals(3, decoded.variableHeader().properties().getProperty(MqttProperties.TOPIC_ALIAS).value());
        } finally {
            decoded.release();
        }
    }

    @Test
    void variableByteIntegersUseTheFewestBytes() {
        int[][] cases = {{0, 1}, {127, 1}, {128, 2}, {16_383, 2}, {16_384, 3}, {2_097_151, 3}, {2_097_152, 4},
            {268_435_455, 4}};
        for (int[] c : cases) {
            ByteBuf buf = ByteBufAllocator.DEFAULT.buffer();
            PublishEncoder.writeVbi(buf, c[0]);
            assertEquals(c[1], buf.readableBytes(), "value " + c[0]);
            assertEquals(c[1], PublishEncoder.vbiSize(c[0]));
            buf.release();
        }
    }
}
