package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import io.sluice.server.testing.ServerProcess;
import io.sluice.server.testing.SlowDiskMain;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.RawClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * QoS 2 is exactly once for persistent sessions across a {@code kill -9}: MQTT 5 clients with
 * persistent sessions (HiveMQ, reconnecting by itself, and a raw client for a subscriber whose
 * packet ids the test must see) against a server process whose disk is slow (every state write waits {@value #WRITE_DELAY_MS} ms), killed with SIGKILL while
 * a QoS 2 exchange is under way and started again on the same state and port. The slow disk
 * holds open the window between a change of a QoS 2 exchange and its record reaching the state
 * log, so that the kill lands inside it every time.
 */
class Qos2CrashTest {
    private static final long WRITE_DELAY_MS = 1000;

    @TempDir
    Path dir;
    private final Map<String, Integer> received = new ConcurrentHashMap<>();
    private final List<String> order = new CopyOnWriteArrayList<>();

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private ServerProcess start(int port) throws IOException {
        return ServerProcess.start(dir, "listeners.tcp.bind = \"127.0.0.1:" + port + "\"\n", SlowDiskMain.class,
                "-D" + SlowDiskMain.WRITE_DELAY_MS + "=" + WRITE_DELAY_MS);
    }

    /** A client with a persistent session (1 h) that reconnects by itself while the server restarts. */
    private static Mqtt5AsyncClient persistent(String id, int port) throws Exception {
        Mqtt5AsyncClient client = MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(port).automaticReconnect().initialDelay(100, TimeUnit.MILLISECONDS)
                .maxDelay(500, TimeUnit.MILLISECONDS).applyAutomaticReconnect().buildAsync();
        client.connectWith().cleanStart(false).sessionExpiryInterval(3600).send().get(30, TimeUnit.SECONDS);
        return client;
    }

    private Mqtt5AsyncClient subscriber(int port) throws Exception {
        Mqtt5AsyncClient subscriber = persistent("keeper", port);
        subscriber.subscribeWith().topicFilter("orders/#").qos(MqttQos.EXACTLY_ONCE)
                .callback(p -> {
                    String payload = new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8);
                    order.add(payload);
                    received.merge(payload, 1, Integer::sum);
                })
                .send().get(30, TimeUnit.SECONDS);
        return subscriber;
    }

    private static CompletableFuture<Mqtt5PublishResult> publish(Mqtt5AsyncClient publisher, String payload) {
        return publisher.publishWith().topic("orders/" + payload).qos(MqttQos.EXACTLY_ONCE)
                .payload(payload.getBytes(StandardCharsets.UTF_8)).send();
    }

    private static void assertStored(Mqtt5PublishResult result) {
        assertEquals(Optional.empty(), result.getError(), "acknowledged as stored");
    }

    /** A raw MQTT 5 subscriber to {@code orders/#} at QoS 2 with a persistent session, as the broker sees it packet by packet. */
    private static RawClient rawSubscriber(int port, boolean subscribe) throws IOException {
        RawClient raw = new RawClient(new Socket("127.0.0.1", port));
        raw.setTimeoutMillis((int) Eventually.DEADLINE.toMillis());
        RawClient.Packet connAck = raw.send(RawClient.connect(5, "raw-keeper", 0x00, 60,
                new RawClient.Bytes().u8(0x11).u32(3600).toByteArray())).readUntil(RawClient.CONNACK);
        assertEquals(0, connAck.u8(1), "CONNACK reason code");
        if (subscribe) {
            raw.send(RawClient.subscribe(5, 1, "orders/#", 2)).readUntil(RawClient.SUBACK);
        }
        return raw;
    }

    /**
     * Reads what the broker sends until the PUBLISH of {@code last}, completing every QoS 2
     * exchange as a receiver does; returns each PUBLISH in order.
     */
    private static List<RawClient.Publish> receiveUntil(RawClient raw, String last) throws IOException {
        List<RawClient.Publish> publishes = new ArrayList<>();
        while (true) {
            RawClient.Packet packet = raw.read();
            if (packet.type() == RawClient.PUBREL) {
                raw.send(RawClient.ack(RawClient.PUBCOMP, packet.u16(0)));
            } else if (packet.type() == RawClient.PUBLISH) {
                RawClient.Publish publish = RawClient.parsePublish(packet, true);
                publishes.add(publish);
                raw.send(RawClient.ack(RawClient.PUBREC, publish.packetId()));
                if (text(publish).equals(last)) {
                    return publishes;
                }
            }
        }
    }

    /** Reads until the PUBREL of {@code packetId} and completes it, completing the others on the way. */
    private static void complete(RawClient raw, int packetId) throws IOException {
        while (true) {
            RawClient.Packet pubRel = raw.readUntil(RawClient.PUBREL);
            raw.send(RawClient.ack(RawClient.PUBCOMP, pubRel.u16(0)));
            if (pubRel.u16(0) == packetId) {
                return;
            }
        }
    }

    /**
     * Delivers 'before' and completes its exchange, then publishes where nobody subscribed: once
     * that is acknowledged, everything before it is written. So 'once' goes out under packet id
     * 2, and a restart finds nothing in flight and would number a new delivery 1: a message sent
     * again as new cannot hide behind the id the subscriber holds.
     */
    private static void deliverBefore(Mqtt5AsyncClient publisher, RawClient raw) throws Exception {
        assertStored(publish(publisher, "before").get(30, TimeUnit.SECONDS));
        RawClient.Publish before = receiveUntil(raw, "before").get(0);
        assertEquals(1, before.packetId());
        complete(raw, before.packetId());
        assertStored(publisher.publishWith().topic("elsewhere").qos(MqttQos.EXACTLY_ONCE).send().get(30, TimeUnit.SECONDS));
    }

    private static String text(RawClient.Publish publish) {
        return new String(publish.payload(), StandardCharsets.UTF_8);
    }

    /**
     * What a receiver makes of what it got after the restart, given the packet ids it still
     * holds (a QoS 2 PUBLISH whose PUBREL it has not had): the payloads it delivers onwards. A
     * PUBLISH under a held id is the same message again (MQTT 5 §4.3.3, method B) and not delivered.
     */
    private static List<String> deliveredOnwards(List<RawClient.Publish> publishes, Set<Integer> held) {
        List<String> delivered = new ArrayList<>();
        for (RawClient.Publish publish : publishes) {
            if (!held.contains(publish.packetId())) {
                delivered.add(text(publish));
            }
        }
        return delivered;
    }

    /**
     * Killed the moment the subscriber has the message, long before the slow disk wrote anything
     * of it: the publisher sends it again (DUP) after the restart, and the subscriber, which holds
     * its packet id, must not get it as a new message. So the message may leave for a persistent
     * session only once the publisher's packet id and the delivery's packet id are written.
     */
    @Test
    void aQos2MessageTheSubscriberHasIsNotDeliveredAgainAfterKill9() throws Exception {
        int port = freePort();
        try (ServerProcess first = start(port)) {
            Mqtt5AsyncClient publisher = persistent("payer", port);
            int held;
            CompletableFuture<Mqtt5PublishResult> onceSent;
            try (RawClient raw = rawSubscriber(port, true)) {
                deliverBefore(publisher, raw);
                CompletableFuture<Mqtt5PublishResult> sent = publish(publisher, "once");
                RawClient.Publish once = RawClient.parsePublish(raw.readUntil(RawClient.PUBLISH), true);
                assertEquals("once", text(once));
                held = once.packetId(); // no PUBREC: killed at once
                onceSent = sent;
                first.kill();
            }
            try (ServerProcess second = start(port); RawClient raw = rawSubscriber(port, false)) {
                assertStored(onceSent.get(30, TimeUnit.SECONDS)); // sent again after the restart
                assertStored(publish(publisher, "after").get(30, TimeUnit.SECONDS));
                List<RawClient.Publish> afterRestart = receiveUntil(raw, "after");
                assertEquals(List.of("after"), deliveredOnwards(afterRestart, Set.of(held)),
                        "after the restart, only 'after' is new to the subscriber (it holds packet id " + held + "); got "
                                + afterRestart);
                publisher.disconnect().get(30, TimeUnit.SECONDS);
                assertEquals(143, second.terminate());
            }
        }
    }

    /**
     * The soak's case: the subscriber completed the whole QoS 2 exchange (PUBREC, PUBREL, PUBCOMP)
     * and the publisher has its PUBCOMP when the server is killed, before the slow disk wrote the
     * delivery's completion. The subscriber holds no packet id any more, so whatever the broker
     * sends it after the restart is new to it: 'once' must not be among it.
     */
    @Test
    void aCompletedQos2DeliveryIsNotSentAgainAfterKill9() throws Exception {
        int port = freePort();
        try (ServerProcess first = start(port)) {
            Mqtt5AsyncClient publisher = MqttClient.builder().useMqttVersion5().identifier("clean-payer")
                    .serverHost("127.0.0.1").serverPort(port).buildAsync();
            publisher.connect().get(30, TimeUnit.SECONDS);
            try (RawClient raw = rawSubscriber(port, true)) {
                deliverBefore(publisher, raw);
                CompletableFuture<Mqtt5PublishResult> once = publish(publisher, "once");
                List<RawClient.Publish> received = receiveUntil(raw, "once");
                complete(raw, received.get(received.size() - 1).packetId());
                assertStored(once.get(30, TimeUnit.SECONDS));
                first.kill();
            }
        }
        try (ServerProcess second = start(port); RawClient raw = rawSubscriber(port, false)) {
            Mqtt5AsyncClient publisher = MqttClient.builder().useMqttVersion5().identifier("clean-payer")
                    .serverHost("127.0.0.1").serverPort(port).buildAsync();
            publisher.connect().get(30, TimeUnit.SECONDS);
            assertStored(publish(publisher, "after").get(30, TimeUnit.SECONDS));
            List<RawClient.Publish> afterRestart = receiveUntil(raw, "after");
            assertEquals(List.of("after"), deliveredOnwards(afterRestart, Set.of()),
                    "after the restart only 'after' is new; got " + afterRestart);
            publisher.disconnect().get(30, TimeUnit.SECONDS);
            assertEquals(143, second.terminate());
        }
    }

    /**
     * Killed the moment the publisher has its PUBCOMP: the publisher may then use the same packet
     * id for its next message, so the broker must have written that the first exchange is over;
     * otherwise the next message is taken for a resend of the first and never routed.
     */
    @Test
    void aPacketIdReleasedBeforeKill9IsFreeForTheNextMessage() throws Exception {
        int port = freePort();
        try (ServerProcess first = start(port)) {
            Mqtt5AsyncClient subscriber = subscriber(port);
            Mqtt5AsyncClient publisher = persistent("payer", port);
            assertStored(publish(publisher, "first").get(30, TimeUnit.SECONDS));
            first.kill();
            try (ServerProcess second = start(port)) {
                assertStored(publish(publisher, "second").get(30, TimeUnit.SECONDS));
                Eventually.await(() -> received.containsKey("second"), () -> "the subscriber got 'second': " + order);
                assertEquals(List.of("first", "second"), order, "each message once, in order");
                subscriber.disconnect().get(30, TimeUnit.SECONDS);
                publisher.disconnect().get(30, TimeUnit.SECONDS);
                assertEquals(143, second.terminate());
            }
        }
    }
}
