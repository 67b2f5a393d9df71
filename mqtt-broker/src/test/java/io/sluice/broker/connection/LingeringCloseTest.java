package io.sluice.broker.connection;

import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.Test;

import static io.sluice.broker.testing.RawClient.DISCONNECT;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that is still writing when the broker disconnects it with a reason code reads that
 * reason code and can finish its writes, instead of meeting a reset or a broken pipe (Paho's
 * {@code test_flow_control2}): the broker shuts down its output, then reads and discards.
 */
class LingeringCloseTest {
    private static final byte[] MORE = RawClient.publish(5, "more", 0, 0, new byte[0], new byte[512]);

    /** What a client with data in flight does after the broker's DISCONNECT: it is still sending. */
    private static void keepsWriting(RawClient raw) {
        assertDoesNotThrow(() -> {
            for (int i = 0; i < 50; i++) {
                raw.send(MORE);
            }
        }, "the broker still reads (and discards) what the client sends after its DISCONNECT");
    }

    @Test
    void receiveMaximumExceededReachesAClientThatKeepsPublishing() throws Exception {
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().receiveMaximum(2).build());
             RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "flooder")).read();
            for (int id = 1; id <= 3; id++) { // QoS 2, never released: the third exceeds Receive Maximum 2
                raw.send(RawClient.publish(5, "flow", 2, id, new byte[0], new byte[100]));
            }
            assertEquals(0x93, raw.readUntil(DISCONNECT).u8(0), "Receive Maximum exceeded");
            assertTrue(raw.closedByBroker(), "end of stream after the DISCONNECT");
            keepsWriting(raw);
            assertBrokerServes(broker);
        }
    }

    @Test
    void packetTooLargeReachesAClientThatKeepsWriting() throws Exception {
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().maxPacketSize(1024).build());
             RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "big")).read();
            raw.send(RawClient.publish(5, "big", 0, 0, new byte[0], new byte[4096]));
            assertEquals(0x95, raw.readUntil(DISCONNECT).u8(0), "Packet too large");
            assertTrue(raw.closedByBroker(), "end of stream after the DISCONNECT");
            keepsWriting(raw);
            assertBrokerServes(broker);
        }
    }

    private static void assertBrokerServes(TestBroker broker) {
        Mqtt5BlockingClient probe = Clients.v5(broker, "probe");
        probe.connect();
        probe.disconnect();
    }
}
