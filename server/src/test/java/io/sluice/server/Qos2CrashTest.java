package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import io.sluice.server.testing.ServerProcess;
import io.sluice.server.testing.SlowDiskMain;
import io.sluice.testing.Eventually;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * QoS 2 is exactly once for persistent sessions across a {@code kill -9}: real MQTT 5 clients
 * (HiveMQ) with persistent sessions and automatic reconnection, against a server process whose
 * disk is slow (every state write waits {@value #WRITE_DELAY_MS} ms), killed with SIGKILL while
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

    /**
     * Killed the moment the subscriber has the message, long before the slow disk wrote anything
     * of it: the publisher sends it again (DUP) after the restart, and the subscriber must not get
     * a second copy. So the message may leave for a persistent session only once the publisher's
     * packet id and the delivery's packet id are written.
     */
    @Test
    void aQos2MessageTheSubscriberHasIsNotDeliveredAgainAfterKill9() throws Exception {
        int port = freePort();
        try (ServerProcess first = start(port)) {
            Mqtt5AsyncClient subscriber = subscriber(port);
            Mqtt5AsyncClient publisher = persistent("payer", port);
            assertStored(publish(publisher, "before").get(30, TimeUnit.SECONDS)); // both sessions are written
            Eventually.await(() -> received.containsKey("before"), () -> "the subscriber got 'before': " + order);
            CompletableFuture<Mqtt5PublishResult> once = publish(publisher, "once");
            Eventually.await(() -> received.containsKey("once"), () -> "the subscriber got 'once': " + order);
            first.kill();
            try (ServerProcess second = start(port)) {
                assertStored(once.get(30, TimeUnit.SECONDS));
                assertStored(publish(publisher, "after").get(30, TimeUnit.SECONDS));
                Eventually.await(() -> received.containsKey("after"), () -> "the subscriber got 'after': " + order);
                assertEquals(List.of("before", "once", "after"), order, "each message once, in order");
                subscriber.disconnect().get(30, TimeUnit.SECONDS);
                publisher.disconnect().get(30, TimeUnit.SECONDS);
                assertEquals(143, second.terminate());
            }
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
