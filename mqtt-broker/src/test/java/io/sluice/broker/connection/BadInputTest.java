package io.sluice.broker.connection;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static io.sluice.broker.testing.RawClient.DISCONNECT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Malformed packets and protocol violations over a raw socket: the connection ends, the broker stays up. */
class BadInputTest {
    private TestBroker broker;

    @BeforeEach
    void start() {
        broker = TestBroker.start();
    }

    @AfterEach
    void stop() {
        assertBrokerServes();
        broker.close();
    }

    private void assertBrokerServes() {
        Mqtt5BlockingClient probe = Clients.v5(broker, "probe");
        probe.connect();
        probe.publishWith().topic("still/alive").send();
        probe.disconnect();
    }

    @Test
    void garbageInsteadOfConnectClosesTheConnection() throws Exception {
        try (RawClient raw = broker.raw()) {
            raw.send(new byte[] {0x7F, 0x02, 0x01, 0x02});
            assertTrue(raw.closedByBroker());
        }
    }

    @Test
    void aFirstPacketOtherThanConnectClosesTheConnection() throws Exception {
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.pingreq());
            assertTrue(raw.closedByBroker());
        }
    }

    @Test
    void aRemainingLengthOfMoreThanFourBytesIsMalformed() throws Exception {
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "vbi")).read();
            raw.send(new byte[] {0x30, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x01});
            assertEquals(0x81, raw.readUntil(DISCONNECT).u8(0));
            assertTrue(raw.closedByBroker());
        }
    }

    @Test
    void aSecondConnectIsAProtocolError() throws Exception {
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "twice")).read();
            raw.send(RawClient.connect(5, "twice"));
            assertEquals(0x82, raw.readUntil(DISCONNECT).u8(0));
        }
        assertEquals(1, broker.broker().metrics().get(BrokerCounter.DISCONNECTS_PROTOCOL_ERROR));
    }

    @Test
    void aPublishToAWildcardTopicIsMalformed() throws Exception {
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "wild")).read();
            raw.send(RawClient.publish(5, "a/+", 0, 0, new byte[0], new byte[0]));
            assertEquals(0x81, raw.readUntil(DISCONNECT).u8(0));
        }
    }

    @Test
    void invalidUtf8InATopicIsMalformed() throws Exception {
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(4, "utf8")).read();
            byte[] body = new RawClient.Bytes().u16(2).u8(0xC3).u8(0x28).toByteArray();
            raw.send(RawClient.packet(0x30, body));
            assertTrue(raw.closedByBroker(), "MQTT 3.1.1 has no DISCONNECT from the server: the connection closes");
        }
    }

    @Test
    void anInvalidTopicFilterIsRefusedInTheSubackAndTheConnectionStays() throws Exception {
        try (RawClient v3 = broker.raw(); RawClient v5 = broker.raw()) {
            v3.send(RawClient.connect(4, "f3")).read();
            v5.send(RawClient.connect(5, "f5")).read();
            assertEquals(0x80, v3.send(RawClient.subscribe(4, 1, "a/#/b", 0)).readUntil(RawClient.SUBACK).u8(2));
            assertEquals(0x8F, v5.send(RawClient.subscribe(5, 1, "a+", 0)).readUntil(RawClient.SUBACK).u8(3));
            v3.send(RawClient.pingreq());
            assertEquals(13, v3.read().type(), "PINGRESP: still connected");
        }
    }

    @Test
    void aPubrelWithWrongFlagsIsMalformed() throws Exception {
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "flags")).read();
            raw.send(new byte[] {0x60, 0x02, 0x00, 0x01}); // PUBREL must have flags 0010
            assertEquals(0x81, raw.readUntil(DISCONNECT).u8(0));
        }
    }

    @Test
    void theReasonForAMalformedPacketIsInTheBrokersWords() throws Exception {
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "lengths")).read();
            // Remaining Length 2, but the topic "a" and the properties length take 4 bytes
            raw.send(new byte[] {0x30, 0x02, 0x00, 0x01, 'a', 0x00, 0x00, 0x00});
            RawClient.Packet disconnect = raw.readUntil(DISCONNECT);
            assertEquals(0x81, disconnect.u8(0));
            String reason = (String) RawClient.properties(disconnect.body(), 1).get(0x1F).get(0);
            assertEquals("malformed packet: the lengths of its fields add up to more than its Remaining Length",
                    reason);
        }
        try (RawClient raw = broker.raw()) {
            byte[] body = new RawClient.Bytes().string("MQIsdp").u8(5).u8(0x02).u16(60).vbi(0).string("odd")
                    .toByteArray();
            RawClient.Packet connAck = raw.send(RawClient.packet(0x10, body)).read();
            assertEquals(RawClient.CONNACK, connAck.type());
            assertTrue(raw.closedByBroker());
        }
    }

    @Test
    void randomBytesAfterConnectNeverTakeTheBrokerDown() throws Exception {
        Mqtt5BlockingClient canary = Clients.v5(broker, "canary");
        canary.connect();
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(canary);
        canary.subscribeWith().topicFilter("canary").qos(MqttQos.AT_LEAST_ONCE).send();
        Random random = new Random(7);
        int closed = 0;
        for (int i = 0; i < 200; i++) {
            try (RawClient raw = broker.raw()) {
                assertEquals(RawClient.CONNACK, raw.send(RawClient.connect(i % 2 == 0 ? 4 : 5, "fuzz-" + i)).read().type());
                byte[] noise = new byte[1 + random.nextInt(64)];
                random.nextBytes(noise);
                raw.send(noise);
                raw.setTimeoutMillis(200);
                if (raw.closedByBroker()) {
                    closed++;
                }
            }
            byte[] round = {(byte) i};
            canary.publishWith().topic("canary").qos(MqttQos.AT_LEAST_ONCE).payload(round).send();
            assertArrayEquals(round, inbox.next().getPayloadAsBytes(), "round trip after noise " + i);
        }
        assertTrue(closed > 0, "some of the noise was malformed and closed its connection");
        Eventually.await(() -> broker.broker().connectedClients().get() == 1,
                "every noisy connection is gone, the canary remains");
        canary.disconnect();
    }
}
