package io.sluice.broker.connection;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PayloadFormatIndicator;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static io.sluice.broker.testing.RawClient.DISCONNECT;
import static io.sluice.broker.testing.RawClient.PUBLISH;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Mqtt5FeaturesTest {
    private TestBroker broker;

    @AfterEach
    void stop() {
        broker.close();
    }

    private Mqtt5BlockingClient connected(String id) {
        Mqtt5BlockingClient client = Clients.v5(broker, id);
        client.connect();
        return client;
    }

    @Test
    void inboundTopicAliasesResolveAndAnUnknownAliasIsAProtocolError() throws Exception {
        broker = TestBroker.start();
        Mqtt5BlockingClient sub = connected("sub");
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);
        sub.subscribeWith().topicFilter("long/topic/#").send();
        byte[] alias7 = new RawClient.Bytes().u8(0x23).u16(7).toByteArray();
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "aliaser")).read();
            raw.send(RawClient.publish(5, "long/topic/name", 0, 0, alias7, "one".getBytes()));
            raw.send(RawClient.publish(5, "", 0, 0, alias7, "two".getBytes()));
            assertEquals("long/topic/name", inbox.next().getTopic().toString());
            Mqtt5Publish second = inbox.next();
            assertEquals("long/topic/name", second.getTopic().toString());
            assertArrayEquals("two".getBytes(), second.getPayloadAsBytes());

            byte[] alias8 = new RawClient.Bytes().u8(0x23).u16(8).toByteArray();
            raw.send(RawClient.publish(5, "", 0, 0, alias8, "three".getBytes()));
            RawClient.Packet disconnect = raw.readUntil(DISCONNECT);
            assertEquals(0x82, disconnect.u8(0), "protocol error");
        }
        sub.disconnect();
    }

    @Test
    void anAliasAboveTheServersMaximumGetsTopicAliasInvalid() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().topicAliasMaximum(2).build());
        byte[] alias3 = new RawClient.Bytes().u8(0x23).u16(3).toByteArray();
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "aliaser")).read();
            raw.send(RawClient.publish(5, "t", 0, 0, alias3, new byte[0]));
            assertEquals(0x94, raw.readUntil(DISCONNECT).u8(0));
        }
    }

    @Test
    void theServerAssignsOutboundAliasesUpToTheClientsMaximum() throws Exception {
        broker = TestBroker.start();
        byte[] aliasMax1 = new RawClient.Bytes().u8(0x22).u16(1).toByteArray();
        Mqtt5BlockingClient pub = connected("pub");
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "aliased", 0x02, 60, aliasMax1)).read();
            raw.send(RawClient.subscribe(5, 1, "a/#", 0)).readUntil(RawClient.SUBACK);
            for (String topic : List.of("a/first", "a/first", "a/second")) {
                pub.publishWith().topic(topic).payload(topic.getBytes()).send();
            }
            RawClient.Publish p1 = RawClient.parsePublish(raw.readUntil(PUBLISH), true);
            RawClient.Publish p2 = RawClient.parsePublish(raw.readUntil(PUBLISH), true);
            RawClient.Publish p3 = RawClient.parsePublish(raw.readUntil(PUBLISH), true);
            assertEquals("a/first", p1.topic());
            assertEquals(1, p1.property(0x23));
            assertEquals("", p2.topic(), "the alias replaces the topic");
            assertEquals(1, p2.property(0x23));
            assertEquals("a/second", p3.topic(), "no alias left for a second topic");
            assertNull(p3.property(0x23));
        }
        pub.disconnect();
    }

    @Test
    void aQueuedMessageExpiresAndWaitingReducesTheForwardedInterval() throws Exception {
        broker = TestBroker.start();
        Mqtt5BlockingClient sub = Clients.v5(broker, "late");
        sub.connectWith().sessionExpiryInterval(300).send();
        sub.subscribeWith().topicFilter("exp/#").qos(MqttQos.AT_LEAST_ONCE).send();
        sub.disconnect();
        Mqtt5BlockingClient pub = connected("pub");
        pub.publishWith().topic("exp/short").qos(MqttQos.AT_LEAST_ONCE).messageExpiryInterval(1).send();
        pub.publishWith().topic("exp/long").qos(MqttQos.AT_LEAST_ONCE).messageExpiryInterval(100).send();
        long publishedAt = System.nanoTime();
        Eventually.await(() -> System.nanoTime() - publishedAt > 2_100_000_000L, "more than a second passed");

        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "late", 0x00, 60, new RawClient.Bytes().u8(0x11).u32(300).toByteArray()))
                    .read();
            RawClient.Publish survivor = RawClient.parsePublish(raw.readUntil(PUBLISH), true);
            assertEquals("exp/long", survivor.topic(), "the expired message is gone");
            long remaining = (Long) survivor.property(0x02);
            assertTrue(remaining <= 98 && remaining >= 90, "interval reduced by the wait: " + remaining);
        }
        assertEquals(1, broker.broker().metrics().get(BrokerCounter.MESSAGES_EXPIRED));
        pub.disconnect();
    }

    @Test
    void exceedingTheServersReceiveMaximumGetsDisconnect0x93() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().receiveMaximum(2).build());
        try (RawClient raw = broker.raw()) {
            RawClient.Packet connAck = raw.send(RawClient.connect(5, "flood")).read();
            assertEquals(2, RawClient.properties(connAck.body(), 2).get(0x21).get(0));
            for (int id = 1; id <= 3; id++) {
                raw.send(RawClient.publish(5, "q2", 2, id, new byte[0], new byte[] {1}));
            }
            assertEquals(0x93, raw.readUntil(DISCONNECT).u8(0));
        }
    }

    @Test
    void aPacketOverTheServersMaximumGetsDisconnect0x95() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().maxPacketSize(1024).build());
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "big")).read();
            raw.send(RawClient.publish(5, "t", 0, 0, new byte[0], new byte[2048]));
            assertEquals(0x95, raw.readUntil(DISCONNECT).u8(0));
        }
        assertTrue(connected("still-up").getState().isConnected(), "the broker stays up");
    }

    @Test
    void aMessageOverTheClientsMaximumIsNotSentToThatClient() throws Exception {
        broker = TestBroker.start();
        Mqtt5BlockingClient small = MqttClient.builder().useMqttVersion5().identifier("small")
                .serverHost(broker.host()).serverPort(broker.port()).buildBlocking();
        small.connectWith().restrictions().maximumPacketSize(100).applyRestrictions().send();
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(small);
        small.subscribeWith().topicFilter("m").qos(MqttQos.AT_LEAST_ONCE).send();
        Mqtt5BlockingClient pub = connected("pub");
        pub.publishWith().topic("m").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[500]).send();
        pub.publishWith().topic("m").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[10]).send();
        assertEquals(10, inbox.next().getPayloadAsBytes().length, "the small one arrives, the big one never");
        assertEquals(1, broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_TOO_LARGE));
        Eventually.await(() -> broker.broker().sessions().get("small").inflightMessages() == 0, "nothing left in flight");
        pub.disconnect();
        small.disconnect();
    }

    @Test
    void noLocalKeepsAClientsOwnMessagesFromIt() throws Exception {
        broker = TestBroker.start();
        Mqtt5BlockingClient self = connected("self");
        Mqtt5BlockingClient other = connected("other");
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(self);
        self.subscribeWith().topicFilter("chat").noLocal(true).send();
        self.publishWith().topic("chat").payload("mine".getBytes()).send();
        other.publishWith().topic("chat").payload("theirs".getBytes()).send();
        assertArrayEquals("theirs".getBytes(), inbox.next().getPayloadAsBytes());
        assertNull(inbox.poll(200));
        self.disconnect();
        other.disconnect();
    }

    @Test
    void applicationPropertiesAreForwardedUnchanged() throws Exception {
        broker = TestBroker.start();
        Mqtt5BlockingClient sub = connected("sub");
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);
        sub.subscribeWith().topicFilter("req").send();
        Mqtt5BlockingClient pub = connected("pub");
        pub.publishWith().topic("req").payload("{}".getBytes()).contentType("application/json")
                .responseTopic("resp/42").correlationData("c-42".getBytes())
                .payloadFormatIndicator(Mqtt5PayloadFormatIndicator.UTF_8)
                .userProperties().add("a", "1").add("b", "2").add("a", "3").applyUserProperties().send();
        Mqtt5Publish p = inbox.next();
        assertEquals("application/json", p.getContentType().orElseThrow().toString());
        assertEquals("resp/42", p.getResponseTopic().orElseThrow().toString());
        assertEquals(ByteBuffer.wrap("c-42".getBytes()), p.getCorrelationData().orElseThrow());
        assertEquals(Mqtt5PayloadFormatIndicator.UTF_8, p.getPayloadFormatIndicator().orElseThrow());
        assertEquals(List.of("a=1", "b=2", "a=3"), p.getUserProperties().asList().stream()
                .map(u -> u.getName() + "=" + u.getValue()).toList(), "order and repeats kept");
        sub.disconnect();
        pub.disconnect();
    }

    @Test
    void aPayloadThatIsNotTheUtf8ItClaimsGetsPayloadFormatInvalid() {
        broker = TestBroker.start();
        Mqtt5BlockingClient pub = connected("pub");
        Mqtt5PubAckException refused = assertThrows(Mqtt5PubAckException.class, () -> pub.publishWith().topic("t")
                .qos(MqttQos.AT_LEAST_ONCE).payloadFormatIndicator(Mqtt5PayloadFormatIndicator.UTF_8)
                .payload(new byte[] {(byte) 0xC3, (byte) 0x28}).send());
        assertEquals(Mqtt5PubAckReasonCode.PAYLOAD_FORMAT_INVALID, refused.getMqttMessage().getReasonCode());
        assertEquals(1, broker.broker().metrics().get(BrokerCounter.PUBLISH_DROPPED_INVALID));
        pub.disconnect();
    }

    @Test
    void requestProblemInformationZeroKeepsReasonStringsOutOfDisconnect() throws Exception {
        broker = TestBroker.start();
        byte[] noProblemInfo = new RawClient.Bytes().u8(0x17).u8(0).toByteArray();
        byte[] alias9 = new RawClient.Bytes().u8(0x23).u16(9).toByteArray();
        try (RawClient quiet = broker.raw(); RawClient chatty = broker.raw()) {
            quiet.send(RawClient.connect(5, "quiet", 0x02, 60, noProblemInfo)).read();
            chatty.send(RawClient.connect(5, "chatty")).read();
            quiet.send(RawClient.publish(5, "", 0, 0, alias9, new byte[0]));
            chatty.send(RawClient.publish(5, "", 0, 0, alias9, new byte[0]));
            Map<Integer, List<Object>> quietProps = RawClient.properties(quiet.readUntil(DISCONNECT).body(), 1);
            Map<Integer, List<Object>> chattyProps = RawClient.properties(chatty.readUntil(DISCONNECT).body(), 1);
            assertFalse(quietProps.containsKey(0x1F));
            assertTrue(((String) chattyProps.get(0x1F).get(0)).contains("alias"));
        }
    }

    @Test
    void clientsCannotPublishIntoSys() throws Exception {
        broker = TestBroker.start();
        Mqtt5BlockingClient sub = connected("sub");
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);
        sub.subscribeWith().topicFilter("$SYS/#").send();
        Mqtt5BlockingClient pub = connected("pub");
        Mqtt5PubAckException refused = assertThrows(Mqtt5PubAckException.class, () -> pub.publishWith()
                .topic("$SYS/broker/uptime").qos(MqttQos.AT_LEAST_ONCE)
                .payload("fake".getBytes(StandardCharsets.UTF_8)).send());
        assertEquals(Mqtt5PubAckReasonCode.NOT_AUTHORIZED, refused.getMqttMessage().getReasonCode());
        assertNull(inbox.poll(200));
        sub.disconnect();
        pub.disconnect();
    }
}
