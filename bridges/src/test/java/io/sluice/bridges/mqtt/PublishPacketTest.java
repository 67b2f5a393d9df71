package io.sluice.bridges.mqtt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.MessageProperties;
import io.sluice.bridges.UserProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The size a PUBLISH is known to have before it is encoded is the size Netty's encoder gives it. */
class PublishPacketTest {

    @ParameterizedTest(name = "MQTT 5: {0}")
    @ValueSource(booleans = {false, true})
    void theSizeKnownBeforehandIsTheEncodedSize(boolean mqtt5) {
        MessageProperties properties = new MessageProperties(1, 60, "text/plain", "reply/here",
                new byte[] {1, 2, 3}, List.of(new UserProperty("k", "v"), new UserProperty("name", "värde")));
        for (int payload : new int[] {0, 100, 200, 20_000, 3_000_000}) {
            for (int qos = 0; qos <= 2; qos++) {
                BridgeMessage message = new BridgeMessage("sensors/ä/1", new byte[payload], qos, false,
                        mqtt5 ? properties : MessageProperties.NONE, "c", System.currentTimeMillis());
                for (int alias : new int[] {0, 7}) {
                    for (String node : new String[] {null, "edge-ü"}) {
                        String topic = alias == 7 ? "" : "sensors/ä/1";
                        int encoded = encode(mqtt5, PublishPacket.build(topic, message, mqtt5, mqtt5 ? alias : 0,
                                qos > 0 ? 42 : 0, false, node, System.currentTimeMillis()));
                        assertEquals(encoded, PublishPacket.size(topic, message, mqtt5, mqtt5 ? alias : 0, node),
                                "payload " + payload + ", QoS " + qos + ", alias " + alias + ", node " + node);
                    }
                }
            }
        }
    }

    private static int encode(boolean mqtt5, Object publish) {
        EmbeddedChannel channel = new EmbeddedChannel(MqttEncoder.INSTANCE);
        channel.writeOutbound(MqttMessageBuilders.connect().protocolVersion(mqtt5 ? MqttVersion.MQTT_5
                : MqttVersion.MQTT_3_1_1).clientId("c").build());
        ((ByteBuf) channel.readOutbound()).release();
        channel.writeOutbound(publish);
        ByteBuf encoded = channel.readOutbound();
        try {
            return encoded.readableBytes();
        } finally {
            encoded.release();
            channel.finishAndReleaseAll();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"MQTT_3_1", "MQTT_3_1_1"})
    void theBridgeBitIsSetOnTheEncodedProtocolLevel(String version) {
        EmbeddedChannel channel = new EmbeddedChannel(new BridgeBit(), MqttEncoder.INSTANCE);
        channel.writeOutbound(MqttMessageBuilders.connect().protocolVersion(MqttVersion.valueOf(version))
                .clientId("bridge").willFlag(true).willTopic("w").willMessage(new byte[300])
                .build());
        ByteBuf connect = channel.readOutbound();
        try {
            int level = connect.getByte(BridgeBit.levelIndex(connect)) & 0xFF;
            assertEquals(MqttVersion.valueOf(version).protocolLevel() | 0x80, level);
            String name = version.equals("MQTT_3_1") ? "MQIsdp" : "MQTT";
            assertEquals(name, connect.toString(BridgeBit.levelIndex(connect) - name.length(), name.length(),
                    StandardCharsets.US_ASCII));
        } finally {
            connect.release();
            channel.finishAndReleaseAll();
        }
    }
}
