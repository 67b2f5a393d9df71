package io.sluice.broker.connection;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import io.sluice.net.ListenerSpec;
import io.sluice.net.limits.Rate;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.sluice.broker.testing.RawClient.CONNACK;
import static io.sluice.broker.testing.RawClient.PUBACK;
import static io.sluice.broker.testing.RawClient.SUBACK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every limit of the broker, each against real connections: what one client may not do to the others. */
class LimitsTest {
    private TestBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private long count(BrokerCounter counter) {
        return broker.broker().metrics().get(counter);
    }

    private static boolean accepted(RawClient client, String clientId) throws IOException {
        RawClient.Packet connAck = client.send(RawClient.connect(4, clientId)).read();
        return connAck.type() == CONNACK && connAck.u8(1) == 0;
    }

    @Test
    void theTotalConnectionLimitClosesTheConnectionOverItUntilOneLeaves() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().maxConnections(2).build());
        try (RawClient first = broker.raw(); RawClient second = broker.raw()) {
            assertTrue(accepted(first, "first"));
            assertTrue(accepted(second, "second"));
            // Opened once the two slots are taken: connections opened together may be set up in either order.
            try (RawClient third = broker.raw()) {
                assertTrue(third.closedByBroker(), "closed at accept, before CONNECT");
            }
            assertEquals(1, count(BrokerCounter.CONNECTIONS_REFUSED_LIMIT));

            first.close();
            Eventually.await(() -> broker.broker().openConnections().get() == 1, "the closed connection frees its slot");
            try (RawClient fourth = broker.raw()) {
                assertTrue(accepted(fourth, "fourth"));
            }
        }
    }

    @Test
    void aListenersOwnConnectionLimitAndRateAreEnforced() throws Exception {
        Broker engine = Broker.open(MqttSettings.defaults());
        broker = new TestBroker(engine, new ListenerSpec("tcp", TestBroker.loopback(), null, null, 1,
                Rate.parse("1/10s", false)));
        try (RawClient first = broker.raw()) {
            assertTrue(accepted(first, "only"));
            // Opened only once the first holds the listener's one slot: two connections opened
            // together may be set up on two event loops in either order.
            try (RawClient second = broker.raw()) {
                assertTrue(second.closedByBroker());
            }
            assertEquals(1, count(BrokerCounter.CONNECTIONS_REFUSED_LIMIT));
        }
        Eventually.await(() -> broker.listener().openConnections() == 0, "both are closed");
        try (RawClient third = broker.raw()) {
            assertTrue(third.closedByBroker(), "a second admitted connection within ten seconds exceeds 1/10s");
            assertEquals(1, count(BrokerCounter.CONNECTIONS_REFUSED_RATE));
        }
    }

    @Test
    void aClientOverItsMessageRateIsSlowedButLosesNothingAndStaysConnected() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().messagesRate(Rate.parse("100/s", false)).build());
        Mqtt5BlockingClient subscriber = Clients.v5(broker, "sub");
        subscriber.connect();
        var inbox = Clients.inbox(subscriber);
        subscriber.subscribeWith().topicFilter("rate/#").qos(MqttQos.AT_LEAST_ONCE).send();
        Mqtt5BlockingClient publisher = Clients.v5(broker, "pub");
        publisher.connect();

        long start = System.nanoTime();
        for (int i = 0; i < 300; i++) {
            publisher.publishWith().topic("rate/" + i).qos(MqttQos.AT_MOST_ONCE).payload(new byte[] {(byte) i}).send();
        }
        for (int i = 0; i < 300; i++) {
            assertEquals("rate/" + i, inbox.next().getTopic().toString());
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertTrue(millis >= 1_500, "a burst of 100, then 200 more at 100/s cannot take less than 2 s, took " + millis);
        assertTrue(count(BrokerCounter.PUBLISH_THROTTLED) > 0);
        assertTrue(publisher.getState().isConnected(), "slowed, never disconnected");
        publisher.disconnect();
        subscriber.disconnect();
    }

    @Test
    void aClientOverItsByteRateIsSlowed() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().bytesRate(Rate.parse("64KB/s", true)).build());
        Mqtt5BlockingClient client = Clients.v5(broker, "bulk");
        client.connect();
        var inbox = Clients.inbox(client);
        client.subscribeWith().topicFilter("bulk").send();

        long start = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            client.publishWith().topic("bulk").qos(MqttQos.AT_MOST_ONCE).payload(new byte[32 * 1024]).send();
        }
        for (int i = 0; i < 5; i++) {
            inbox.next();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        // 64 KB of burst; the third message leaves 32 KB of debt; each later one waits for the one before.
        assertTrue(millis >= 700, "the fifth 32 KB message cannot pass before 1 s at 64 KB/s, took " + millis);
        assertTrue(count(BrokerCounter.PUBLISH_THROTTLED) > 0);
        assertTrue(client.getState().isConnected());
        client.disconnect();
    }

    /** One SUBSCRIBE with several filters, QoS 1 each. */
    private static byte[] subscribe(int level, int packetId, List<String> filters) {
        RawClient.Bytes body = new RawClient.Bytes().u16(packetId);
        if (level == 5) {
            body.vbi(0);
        }
        for (String filter : filters) {
            body.string(filter).u8(1);
        }
        return RawClient.packet(0x82, body.toByteArray());
    }

    @Test
    void subscriptionsBeyondTheClientsQuotaAreRefusedButReplacingOneIsNot() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().maxSubscriptions(3).build());
        try (RawClient five = broker.raw(); RawClient three = broker.raw()) {
            five.send(RawClient.connect(5, "five")).read();
            three.send(RawClient.connect(4, "three")).read();

            RawClient.Packet subAck = five.send(subscribe(5, 1, List.of("a", "b", "c", "d", "e"))).readUntil(SUBACK);
            assertEquals(List.of(1, 1, 1, 0x97, 0x97), codes(subAck, 3), "quota exceeded");
            RawClient.Packet again = five.send(subscribe(5, 2, List.of("a"))).readUntil(SUBACK);
            assertEquals(List.of(1), codes(again, 3), "re-subscribing an existing filter adds nothing");

            RawClient.Packet subAck3 = three.send(subscribe(4, 1, List.of("a", "b", "c", "d"))).readUntil(SUBACK);
            assertEquals(List.of(1, 1, 1, 0x80), codes(subAck3, 2));
        }
        assertEquals(3, count(BrokerCounter.SUBSCRIBE_REFUSED_QUOTA));
    }

    private static List<Integer> codes(RawClient.Packet subAck, int offset) {
        List<Integer> codes = new ArrayList<>();
        for (int i = offset; i < subAck.body().length; i++) {
            codes.add(subAck.u8(i));
        }
        return codes;
    }

    @Test
    void topicsDeeperThanMaxTopicLevelsAreRefused() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().maxTopicLevels(3).build());
        try (RawClient client = broker.raw()) {
            client.send(RawClient.connect(5, "deep")).read();
            RawClient.Packet subAck = client.send(subscribe(5, 1, List.of("a/b/c", "a/b/c/d", "a/+/#"))).readUntil(SUBACK);
            assertEquals(List.of(1, 0x8F, 1), codes(subAck, 3), "topic filter invalid");

            RawClient.Packet pubAck = client.send(RawClient.publish(5, "a/b/c/d", 1, 7, new byte[0], new byte[] {1}))
                    .readUntil(PUBACK);
            assertEquals(0x90, pubAck.u8(2), "topic name invalid");
        }
        assertEquals(1, count(BrokerCounter.SUBSCRIBE_REFUSED_INVALID));
        assertEquals(1, count(BrokerCounter.PUBLISH_DROPPED_INVALID));
    }

    @Test
    void aBurstOfAHundredClientsWithAThousandSubscriptionsEachLeavesTheBrokerServing() throws Exception {
        broker = TestBroker.start(MqttSettings.builder().maxSubscriptions(500).build());
        List<RawClient> clients = new ArrayList<>();
        try {
            for (int c = 0; c < 100; c++) {
                RawClient client = broker.raw();
                clients.add(client);
                client.send(RawClient.connect(4, "burst-" + c));
            }
            for (int c = 0; c < 100; c++) {
                assertEquals(CONNACK, clients.get(c).read().type());
                for (int p = 0; p < 10; p++) {
                    List<String> filters = new ArrayList<>();
                    for (int f = 0; f < 100; f++) {
                        filters.add("burst/" + c + "/" + (p * 100 + f) + "/+");
                    }
                    clients.get(c).send(subscribe(4, p + 1, filters));
                }
            }
            long granted = 0;
            long refused = 0;
            for (RawClient client : clients) {
                for (int p = 0; p < 10; p++) {
                    for (int code : codes(client.readUntil(SUBACK), 2)) {
                        if (code == 1) {
                            granted++;
                        } else {
                            refused++;
                        }
                    }
                }
            }
            assertEquals(50_000, granted);
            assertEquals(50_000, refused);
            assertEquals(50_000, broker.broker().router().subscriptionCount());

            Mqtt5BlockingClient probe = Clients.v5(broker, "probe");
            probe.connect();
            var inbox = Clients.inbox(probe);
            probe.subscribeWith().topicFilter("still/alive").send();
            probe.publishWith().topic("still/alive").payload(new byte[] {1}).send();
            assertEquals("still/alive", inbox.next().getTopic().toString());
            probe.disconnect();
        } finally {
            for (RawClient client : clients) {
                client.close();
            }
        }
        Eventually.await(() -> broker.broker().router().subscriptionCount() == 0
                && broker.broker().openConnections().get() == 0, "every burst session is cleaned up");
    }
}
