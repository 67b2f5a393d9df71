package io.sluice.broker.connection;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAck;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import static io.sluice.broker.testing.RawClient.PUBLISH;
import static io.sluice.broker.testing.RawClient.PUBREC;
import static io.sluice.broker.testing.RawClient.PUBREL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionTest {
    private TestBroker broker;

    @AfterEach
    void stop() {
        broker.close();
    }

    private static byte[] expiryProperty(long seconds) {
        return new RawClient.Bytes().u8(0x11).u32(seconds).toByteArray();
    }

    @Test
    void aPersistentSessionKeepsItsSubscriptionsAndQueuesWhileOffline() throws Exception {
        broker = TestBroker.start();
        Mqtt3BlockingClient sub = Clients.v3(broker, "persistent");
        sub.connectWith().cleanSession(false).send();
        sub.subscribeWith().topicFilter("jobs/#").qos(MqttQos.AT_LEAST_ONCE).send();
        sub.disconnect();
        broker.awaitOffline("persistent");

        Mqtt3BlockingClient pub = Clients.v3(broker, "pub");
        pub.connect();
        for (int i = 0; i < 10; i++) {
            pub.publishWith().topic("jobs/" + i).qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {(byte) i}).send();
        }
        Eventually.await(() -> broker.broker().sessions().get("persistent").queuedMessages() == 10, "10 messages queued");

        Mqtt3BlockingClient back = Clients.v3(broker, "persistent");
        Clients.Inbox<Mqtt3Publish> inbox = Clients.inbox(back);
        assertTrue(back.connectWith().cleanSession(false).send().isSessionPresent());
        for (int i = 0; i < 10; i++) {
            Mqtt3Publish message = inbox.next();
            assertEquals("jobs/" + i, message.getTopic().toString());
            assertArrayEquals(new byte[] {(byte) i}, message.getPayloadAsBytes());
        }
        back.disconnect();
        pub.disconnect();
    }

    @Test
    void cleanSessionDiscardsWhatWasKept() {
        broker = TestBroker.start();
        Mqtt3BlockingClient client = Clients.v3(broker, "c");
        client.connectWith().cleanSession(false).send();
        client.subscribeWith().topicFilter("x").send();
        client.disconnect();
        assertFalse(client.connectWith().cleanSession(true).send().isSessionPresent());
        client.disconnect();
        Eventually.await(() -> broker.broker().sessions().get("c") == null, "clean session removed");
        assertEquals(0, broker.broker().router().subscriptionCount());
    }

    @Test
    void theOfflineQueueIsBoundedInMessagesAndCountsWhatItDrops() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().maxMqueueLen(5).build());
        Mqtt5BlockingClient sub = Clients.v5(broker, "bounded");
        sub.connectWith().cleanStart(true).sessionExpiryInterval(300).send();
        sub.subscribeWith().topicFilter("t").qos(MqttQos.AT_LEAST_ONCE).send();
        sub.disconnect();
        broker.awaitOffline("bounded");
        Mqtt5BlockingClient pub = Clients.v5(broker, "pub");
        pub.connect();
        for (int i = 0; i < 8; i++) {
            pub.publishWith().topic("t").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {(byte) i}).send();
        }
        assertEquals(5, broker.broker().sessions().get("bounded").queuedMessages());
        assertEquals(3, broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL));
        assertEquals(3, broker.broker().sessions().get("bounded").droppedMessages());
        pub.disconnect();
    }

    @Test
    void theOfflineQueueIsBoundedInBytes() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().maxMqueueBytes(10_000).build());
        Mqtt5BlockingClient sub = Clients.v5(broker, "bytes");
        sub.connectWith().sessionExpiryInterval(300).send();
        sub.subscribeWith().topicFilter("t").qos(MqttQos.AT_LEAST_ONCE).send();
        sub.disconnect();
        broker.awaitOffline("bytes");
        Mqtt5BlockingClient pub = Clients.v5(broker, "pub");
        pub.connect();
        for (int i = 0; i < 10; i++) {
            pub.publishWith().topic("t").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[3_000]).send();
        }
        assertEquals(3, broker.broker().sessions().get("bytes").queuedMessages());
        assertEquals(7, broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL));
        pub.disconnect();
    }

    @Test
    void qos0IsNotQueuedForOfflineClientsWhenQueueQos0IsOff() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().queueQos0(false).build());
        Mqtt5BlockingClient sub = Clients.v5(broker, "noq0");
        sub.connectWith().sessionExpiryInterval(300).send();
        sub.subscribeWith().topicFilter("t").qos(MqttQos.AT_LEAST_ONCE).send();
        sub.disconnect();
        broker.awaitOffline("noq0");
        Mqtt5BlockingClient pub = Clients.v5(broker, "pub");
        pub.connect();
        pub.publishWith().topic("t").qos(MqttQos.AT_MOST_ONCE).payload(new byte[] {0}).send();
        pub.publishWith().topic("t").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {1}).send();
        assertEquals(1, broker.broker().sessions().get("noq0").queuedMessages());
        Eventually.await(() -> broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_OFFLINE_QOS0) == 1,
                "QoS 0 drop counted");
        pub.disconnect();
    }

    @Test
    void unacknowledgedQos1IsResentWithDupOnReconnect() throws Exception {
        broker = TestBroker.start();
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "unacked", 0x00, 60, expiryProperty(300))).read();
            raw.send(RawClient.subscribe(5, 1, "q1", 1)).readUntil(RawClient.SUBACK);
            publishFromAnotherClient("q1", MqttQos.AT_LEAST_ONCE, "first");
            RawClient.Publish first = RawClient.parsePublish(raw.readUntil(PUBLISH), true);
            assertFalse(first.dup());
            assertEquals("first", new String(first.payload(), StandardCharsets.UTF_8));
            // disconnect without PUBACK
            raw.close();
            try (RawClient again = broker.raw()) {
                RawClient.Packet connAck = again.send(RawClient.connect(5, "unacked", 0x00, 60, expiryProperty(300)))
                        .read();
                assertEquals(1, connAck.u8(0), "session present");
                RawClient.Publish resent = RawClient.parsePublish(again.readUntil(PUBLISH), true);
                assertTrue(resent.dup());
                assertEquals(first.packetId(), resent.packetId());
                assertEquals("first", new String(resent.payload(), StandardCharsets.UTF_8));
                again.send(RawClient.ack(RawClient.PUBACK, resent.packetId()));
                Eventually.await(() -> broker.broker().sessions().get("unacked").inflightMessages() == 0,
                        "acknowledged");
            }
        }
    }

    @Test
    void aQos2MessageAwaitingPubcompGetsItsPubrelResentOnReconnect() throws Exception {
        broker = TestBroker.start();
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(4, "q2", 0x00, 60, new byte[0])).read();
            raw.send(RawClient.subscribe(4, 1, "q2", 2)).readUntil(RawClient.SUBACK);
            publishFromAnotherClient("q2", MqttQos.EXACTLY_ONCE, "once");
            RawClient.Publish publish = RawClient.parsePublish(raw.readUntil(PUBLISH), false);
            assertEquals(2, publish.qos());
            raw.send(RawClient.ack(PUBREC, publish.packetId()));
            assertEquals(publish.packetId(), raw.readUntil(PUBREL).u16(0));
        }
        try (RawClient again = broker.raw()) {
            again.send(RawClient.connect(4, "q2", 0x00, 60, new byte[0])).read();
            RawClient.Packet pubrel = again.read();
            assertEquals(PUBREL, pubrel.type(), "no second PUBLISH: the client already has the message");
            again.send(RawClient.ack(RawClient.PUBCOMP, pubrel.u16(0)));
            Eventually.await(() -> broker.broker().sessions().get("q2").inflightMessages() == 0, "exchange complete");
        }
    }

    @Test
    void theInflightWindowFollowsTheClientsReceiveMaximum() throws Exception {
        broker = TestBroker.start();
        byte[] receiveMaximum2 = new RawClient.Bytes().u8(0x21).u16(2).toByteArray();
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "window", 0x02, 60, receiveMaximum2)).read();
            raw.send(RawClient.subscribe(5, 1, "w", 1)).readUntil(RawClient.SUBACK);
            for (int i = 0; i < 5; i++) {
                publishFromAnotherClient("w", MqttQos.AT_LEAST_ONCE, "m" + i);
            }
            RawClient.Publish m0 = RawClient.parsePublish(raw.readUntil(PUBLISH), true);
            RawClient.Publish m1 = RawClient.parsePublish(raw.readUntil(PUBLISH), true);
            raw.setTimeoutMillis(300);
            assertThrows(SocketTimeoutException.class, raw::read, "a third message exceeds the window");
            raw.setTimeoutMillis(5_000);
            raw.send(RawClient.ack(RawClient.PUBACK, m0.packetId()));
            RawClient.Publish m2 = RawClient.parsePublish(raw.readUntil(PUBLISH), true);
            assertEquals("m2", new String(m2.payload(), StandardCharsets.UTF_8));
            assertEquals("m1", new String(m1.payload(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aSessionExpiresAfterItsIntervalAndItsSubscriptionsGo() throws Exception {
        broker = TestBroker.start();
        Mqtt5BlockingClient client = Clients.v5(broker, "short");
        client.connectWith().sessionExpiryInterval(1).send();
        client.subscribeWith().topicFilter("s/#").send();
        client.disconnect();
        assertEquals(1, broker.broker().router().subscriptionCount());
        // The registry forgets the session first, then its subscriptions go.
        Eventually.await(() -> broker.broker().sessions().get("short") == null
                && broker.broker().router().subscriptionCount() == 0, "session expired with its subscriptions");
        assertEquals(1, broker.broker().metrics().get(BrokerCounter.SESSIONS_EXPIRED));
        Mqtt5ConnAck connAck = client.connectWith().cleanStart(false).send();
        assertFalse(connAck.isSessionPresent());
        client.disconnect();
    }

    @Test
    void overlappingSubscriptionsGiveOneCopyAtTheHighestQosWithEveryIdentifier() throws Exception {
        broker = TestBroker.start();
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "overlap")).read();
            raw.send(subscribeWithId(1, "a/+", 0, 11)).readUntil(RawClient.SUBACK);
            raw.send(subscribeWithId(2, "a/#", 2, 22)).readUntil(RawClient.SUBACK);
            raw.send(subscribeWithId(3, "a/b", 1, 33)).readUntil(RawClient.SUBACK);
            publishFromAnotherClient("a/b", MqttQos.EXACTLY_ONCE, "x");
            RawClient.Publish publish = RawClient.parsePublish(raw.readUntil(PUBLISH), true);
            assertEquals(2, publish.qos());
            assertEquals(Set.of(11, 22, 33), new HashSet<>(publish.properties().get(0x0B)));
            raw.setTimeoutMillis(300);
            assertThrows(SocketTimeoutException.class, raw::read, "only one copy");
        }
    }

    private static byte[] subscribeWithId(int packetId, String filter, int qos, int identifier) {
        byte[] props = new RawClient.Bytes().u8(0x0B).vbi(identifier).toByteArray();
        return RawClient.packet(0x82, new RawClient.Bytes().u16(packetId).vbi(props.length).raw(props)
                .string(filter).u8(qos).toByteArray());
    }

    private void publishFromAnotherClient(String topic, MqttQos qos, String payload) {
        Mqtt5BlockingClient pub = Clients.v5(broker, "publisher-" + System.nanoTime());
        pub.connect();
        pub.publishWith().topic(topic).qos(qos).payload(payload.getBytes(StandardCharsets.UTF_8)).send();
        pub.disconnect();
    }

    @Test
    void sessionExpiryIntervalOfZeroEndsTheSessionWithTheConnection() {
        broker = TestBroker.start();
        Mqtt5BlockingClient client = Clients.v5(broker, "ephemeral");
        client.connectWith().sessionExpiryInterval(0).send();
        client.subscribeWith().topicFilter("e").send();
        client.disconnect();
        Eventually.await(() -> broker.broker().sessions().get("ephemeral") == null, "session gone");
        assertNull(broker.broker().sessions().get("ephemeral"));
        assertEquals(0, broker.broker().router().subscriptionCount());
    }
}
