package io.sluice.broker.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.connection.Connection;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;

import java.util.Arrays;

import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes what a client can send: the bytes go through the handlers every connection gets
 * ({@link MqttListener#addMqtt}: byte counter, Netty's MQTT decoder, idle timer, {@link Connection})
 * on an {@link EmbeddedChannel}, in front of a real {@link Broker} (docs/reliability.md). The first input byte picks MQTT 3.1.1 or 5
 * and whether a valid CONNECT goes first (so most inputs are packets after CONNECT); the rest is
 * the client's byte stream.
 *
 * <p>Contract: the broker answers, or ends the connection for a reason it counts (a refused
 * CONNECT, a protocol error, a denied packet); the only other way a connection ends is the client's
 * own DISCONNECT. A connection that closes otherwise was ended by an unexpected exception inside
 * the broker, which {@link Connection#exceptionCaught} only logs.
 */
class MqttInputFuzzTest {
    /** CONNECT, MQTT 3.1.1, clean session, keepalive 60 s, client id "fuzz". */
    private static final byte[] CONNECT_311 = {0x10, 16, 0, 4, 'M', 'Q', 'T', 'T', 4, 0x02, 0, 60, 0, 4, 'f', 'u', 'z', 'z'};
    /** CONNECT, MQTT 5, clean start, keepalive 60 s, no properties, client id "fuzz". */
    private static final byte[] CONNECT_5 = {0x10, 17, 0, 4, 'M', 'Q', 'T', 'T', 5, 0x02, 0, 60, 0, 0, 4, 'f', 'u', 'z', 'z'};
    private static final BrokerCounter[] REASONS = {BrokerCounter.CONNECTIONS_REFUSED,
            BrokerCounter.CONNECTIONS_REFUSED_AUTH, BrokerCounter.DISCONNECTS_PROTOCOL_ERROR,
            BrokerCounter.DISCONNECTS_NOT_AUTHORIZED};

    private static Broker broker;

    @FuzzTest(maxDuration = "5m")
    void answersOrClosesForACountedReason(byte[] data) {
        if (data.length == 0) {
            return;
        }
        int mode = data[0] & 3;
        byte[] connect = mode == 0 ? CONNECT_311 : mode == 1 ? CONNECT_5 : new byte[0];
        byte[] stream = concat(connect, Arrays.copyOfRange(data, 1, data.length));
        ClientDisconnect disconnect = new ClientDisconnect();
        EmbeddedChannel channel = new EmbeddedChannel();
        MqttListener.addMqtt(channel.pipeline(), broker(), new TrafficCounter(broker().metrics()), false);
        channel.pipeline().addBefore("mqtt", "client-disconnect", disconnect);
        long reasonsBefore = reasons();
        try {
            channel.writeInbound(Unpooled.wrappedBuffer(stream));
            channel.runPendingTasks();
            channel.checkException();
            boolean closedByBroker = !channel.isOpen() && !disconnect.seen;
            assertTrue(!closedByBroker || reasons() > reasonsBefore,
                    "the broker closed the connection without a counted reason: an unexpected exception (see the log)");
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    private static long reasons() {
        BrokerMetrics metrics = broker().metrics();
        long sum = 0;
        for (BrokerCounter counter : REASONS) {
            sum += metrics.get(counter);
        }
        return sum;
    }

    private static Broker broker() {
        if (broker == null) {
            broker = Broker.open(MqttSettings.defaults());
        }
        return broker;
    }

    @AfterAll
    static void closeBroker() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    /** Notes a well-formed DISCONNECT from the client on its way to the connection. */
    private static final class ClientDisconnect extends ChannelInboundHandlerAdapter {
        boolean seen;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof MqttMessage m && m.decoderResult().isSuccess()
                    && m.fixedHeader().messageType() == MqttMessageType.DISCONNECT) {
                seen = true;
            }
            ctx.fireChannelRead(msg);
        }
    }
}
