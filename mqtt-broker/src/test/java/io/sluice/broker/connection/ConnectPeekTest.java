package io.sluice.broker.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A CONNECT with the bridge bit (protocol level | 0x80) decodes, however it is split, and marks the channel. */
class ConnectPeekTest {

    @ParameterizedTest(name = "split after {0} bytes")
    @ValueSource(ints = {1, 2, 5, 8, 9, 10, 40})
    void aBridgeConnectDecodesWhateverTheSplitAndMarksTheChannel(int split) {
        for (MqttVersion version : new MqttVersion[] {MqttVersion.MQTT_3_1, MqttVersion.MQTT_3_1_1}) {
            ByteBuf connect = encode(version);
            int level = ConnectPeek.levelIndex(connect);
            connect.setByte(level, connect.getByte(level) | 0x80);
            EmbeddedChannel channel = new EmbeddedChannel(new ConnectPeek(1 << 20), new MqttDecoder());
            int first = Math.min(split, connect.readableBytes());
            channel.writeInbound(connect.readRetainedSlice(first));
            channel.writeInbound(connect.readRetainedSlice(connect.readableBytes()));
            connect.release();
            MqttConnectMessage decoded = channel.readInbound();
            assertTrue(decoded.decoderResult().isSuccess(), () -> decoded.decoderResult().toString());
            assertEquals(version.protocolLevel(), decoded.variableHeader().version());
            assertTrue(ConnectPeek.isBridge(channel), "the channel is marked as a bridge");
            channel.finishAndReleaseAll();
        }
    }

    @ParameterizedTest(name = "split after {0} bytes")
    @ValueSource(ints = {1, 9, 40})
    void anOrdinaryConnectPassesUntouched(int split) {
        ByteBuf connect = encode(MqttVersion.MQTT_5);
        EmbeddedChannel channel = new EmbeddedChannel(new ConnectPeek(1 << 20), new MqttDecoder());
        channel.writeInbound(connect.readRetainedSlice(Math.min(split, connect.readableBytes())));
        channel.writeInbound(connect.readRetainedSlice(connect.readableBytes()));
        connect.release();
        MqttConnectMessage decoded = channel.readInbound();
        assertTrue(decoded.decoderResult().isSuccess());
        assertFalse(ConnectPeek.isBridge(channel));
        assertEquals(null, channel.pipeline().get(ConnectPeek.class), "the handler left the pipeline");
        channel.finishAndReleaseAll();
    }

    private static ByteBuf encode(MqttVersion version) {
        EmbeddedChannel encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
        encoder.writeOutbound(MqttMessageBuilders.connect().protocolVersion(version).clientId("bridge-1")
                .keepAlive(60).build());
        ByteBuf bytes = encoder.readOutbound();
        encoder.finishAndReleaseAll();
        return bytes;
    }
}
