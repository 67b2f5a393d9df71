package io.sluice.broker.connection;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WillTest {
    private TestBroker broker;
    private Mqtt5BlockingClient watcher;
    private Clients.Inbox<Mqtt5Publish> wills;

    @BeforeEach
    void start() {
        broker = TestBroker.start();
        watcher = Clients.v5(broker, "watcher");
        watcher.connect();
        wills = Clients.inbox(watcher);
        watcher.subscribeWith().topicFilter("wills/#").qos(MqttQos.AT_LEAST_ONCE).send();
    }

    @AfterEach
    void stop() {
        watcher.disconnect();
        broker.close();
    }

    /** An MQTT 5 CONNECT with a will on "wills/<id>", its will properties and session expiry. */
    private static byte[] connectWithWill(String id, long willDelay, long sessionExpiry) {
        byte[] connectProps = new RawClient.Bytes().u8(0x11).u32(sessionExpiry).toByteArray();
        byte[] willProps = new RawClient.Bytes().u8(0x18).u32(willDelay)
                .u8(0x03).string("text/plain").u8(0x26).string("origin").string(id).toByteArray();
        RawClient.Bytes b = new RawClient.Bytes().string("MQTT").u8(5).u8(0x02 | 0x04 | 0x08).u16(60)
                .vbi(connectProps.length).raw(connectProps).string(id)
                .vbi(willProps.length).raw(willProps).string("wills/" + id).string("bye " + id);
        return RawClient.packet(0x10, b.toByteArray());
    }

    @Test
    void anAbruptlyClosedConnectionPublishesItsWillWithItsProperties() throws Exception {
        try (RawClient client = broker.raw()) {
            client.send(connectWithWill("abrupt", 0, 0)).read();
        }
        Mqtt5Publish will = wills.next();
        assertEquals("wills/abrupt", will.getTopic().toString());
        assertArrayEquals("bye abrupt".getBytes(StandardCharsets.UTF_8), will.getPayloadAsBytes());
        assertEquals("text/plain", will.getContentType().orElseThrow().toString());
        assertEquals("origin", will.getUserProperties().asList().get(0).getName().toString());
        assertEquals(MqttQos.AT_LEAST_ONCE, will.getQos());
    }

    /** A CONNECT of {@code level} 4 or 5 with a will on {@code topic}, split over several TCP writes. */
    private static byte[] connectWithWillTopic(int level, String id, String topic) {
        RawClient.Bytes b = new RawClient.Bytes().string("MQTT").u8(level).u8(0x02 | 0x04).u16(60);
        if (level == 5) {
            b.vbi(0);
        }
        b.string(id);
        if (level == 5) {
            b.vbi(0);
        }
        return RawClient.packet(0x10, b.string(topic).string("bye").toByteArray());
    }

    @Test
    void willTopicsUpToTheLongestMqttAllowsArePublished() throws Exception {
        // the decoder reads a will topic's length as if it were signed: 32,768 bytes and more got lost
        for (int length : new int[] {32_767, 32_768, 65_535}) {
            for (int level : new int[] {4, 5}) {
                String topic = "wills/" + "w".repeat(length - "wills/".length());
                try (RawClient client = broker.raw()) {
                    byte[] connect = connectWithWillTopic(level, "long-" + level, topic);
                    client.send(java.util.Arrays.copyOf(connect, 100));
                    client.send(java.util.Arrays.copyOfRange(connect, 100, connect.length));
                    assertEquals(RawClient.CONNACK, client.read().type(), "CONNACK for a will topic of " + length);
                }
                Mqtt5Publish will = wills.next();
                assertEquals(topic, will.getTopic().toString(), "MQTT " + level + ", will topic of " + length);
            }
        }
    }

    @Test
    void aNormalDisconnectDiscardsTheWill() throws Exception {
        try (RawClient client = broker.raw()) {
            client.send(connectWithWill("polite", 0, 0)).read();
            client.send(new byte[] {(byte) 0xE0, 0});
            assertTrue(client.closedByBroker());
        }
        assertNull(wills.poll(300));
    }

    @Test
    void disconnectWithReason0x04PublishesTheWill() throws Exception {
        try (RawClient client = broker.raw()) {
            client.send(connectWithWill("asked", 0, 0)).read();
            client.send(new byte[] {(byte) 0xE0, 1, 0x04});
            assertTrue(client.closedByBroker());
        }
        assertEquals("wills/asked", wills.next().getTopic().toString());
    }

    @Test
    void aDelayedWillIsCancelledWhenTheClientReconnectsInTime() throws Exception {
        try (RawClient client = broker.raw()) {
            client.send(connectWithWill("flaky", 2, 300)).read();
        }
        assertNull(wills.poll(300), "delayed");
        Mqtt5BlockingClient back = Clients.v5(broker, "flaky");
        back.connectWith().cleanStart(false).sessionExpiryInterval(300).send();
        assertNull(wills.poll(2_500), "reconnected before the delay passed");
        back.disconnectWith().reasonCode(Mqtt5DisconnectReasonCode.NORMAL_DISCONNECTION).send();
    }

    @Test
    void aDelayedWillGoesOutAfterItsDelay() throws Exception {
        long start = System.nanoTime();
        try (RawClient client = broker.raw()) {
            client.send(connectWithWill("late", 1, 300)).read();
        }
        assertEquals("wills/late", wills.next().getTopic().toString());
        assertTrue(System.nanoTime() - start >= 1_000_000_000L, "not before the Will Delay Interval");
    }

    @Test
    void theWillGoesOutWhenTheSessionEndsIfThatComesFirst() throws Exception {
        long start = System.nanoTime();
        try (RawClient client = broker.raw()) {
            client.send(connectWithWill("short-session", 3600, 1)).read();
        }
        // The inbox waits 5 s at most, so the will came at the session's end, not after its 1 h delay.
        assertEquals("wills/short-session", wills.next().getTopic().toString());
        assertTrue(System.nanoTime() - start >= 1_000_000_000L, "not before the session expired");
    }
}
