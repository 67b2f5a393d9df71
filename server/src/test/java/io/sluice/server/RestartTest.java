package io.sluice.server;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.server.testing.ServerProcess;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.RandomAccessFile;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import static io.sluice.broker.testing.RawClient.PUBCOMP;
import static io.sluice.broker.testing.RawClient.PUBLISH;
import static io.sluice.broker.testing.RawClient.PUBREC;
import static io.sluice.broker.testing.RawClient.PUBREL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Durable broker state with real clients against a real server process, stopped gracefully
 * (SIGTERM) or killed (SIGKILL) and started again on the same state directory.
 */
class RestartTest {
    @TempDir
    Path dir;

    private static byte[] expiry(long seconds) {
        return new RawClient.Bytes().u8(0x11).u32(seconds).toByteArray();
    }

    private static Mqtt5BlockingClient client(ServerProcess server, String id) {
        return MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(server.port()).buildBlocking();
    }

    private static RawClient raw(ServerProcess server) throws Exception {
        return new RawClient(new Socket("127.0.0.1", server.port()));
    }

    private static void stop(ServerProcess server, String how) throws Exception {
        if (how.equals("SIGKILL")) {
            server.kill();
        } else {
            assertEquals(143, server.terminate(), "a JVM stopped by SIGTERM exits with 128 + 15");
        }
    }

    @ParameterizedTest(name = "after {0}")
    @ValueSource(strings = {"SIGTERM", "SIGKILL"})
    void retainedMessagesSessionsQueuesAndQos2StateSurvive(String how) throws Exception {
        int inflightPacketId;
        try (ServerProcess first = ServerProcess.start(dir, "")) {
            Mqtt5BlockingClient publisher = client(first, "publisher");
            publisher.connect();
            publisher.publishWith().topic("config/line1").retain(true).qos(MqttQos.AT_LEAST_ONCE)
                    .payload("speed=3".getBytes()).send();

            Mqtt5BlockingClient subscriber = client(first, "subscriber");
            subscriber.connectWith().cleanStart(true).sessionExpiryInterval(3600).send();
            subscriber.subscribeWith().topicFilter("orders/#").qos(MqttQos.EXACTLY_ONCE).send();
            subscriber.disconnect();
            publisher.publishWith().topic("orders/1").qos(MqttQos.AT_LEAST_ONCE).payload("queued".getBytes()).send();

            try (RawClient q2 = raw(first)) {
                q2.send(RawClient.connect(5, "q2-subscriber", 0x02, 60, expiry(3600))).read();
                q2.send(RawClient.subscribe(5, 1, "payments", 2)).readUntil(RawClient.SUBACK);
                publisher.publishWith().topic("payments").qos(MqttQos.EXACTLY_ONCE).payload("42 EUR".getBytes()).send();
                RawClient.Publish payment = RawClient.parsePublish(q2.readUntil(PUBLISH), true);
                inflightPacketId = payment.packetId();
                q2.send(RawClient.ack(PUBREC, inflightPacketId));
                assertEquals(inflightPacketId, q2.readUntil(PUBREL).u16(0));
                // no PUBCOMP: the exchange is left awaiting completion
            }
            try (RawClient payer = raw(first)) {
                payer.send(RawClient.connect(5, "payer", 0x02, 60, expiry(3600))).read();
                payer.send(RawClient.publish(5, "orders/2", 2, 9, new byte[0], "once".getBytes()));
                assertEquals(PUBREC, payer.read().type()); // written before it was acknowledged
                // no PUBREL yet
            }
            stop(first, how);
        }

        try (ServerProcess second = ServerProcess.start(dir, "")) {
            Mqtt5BlockingClient reader = client(second, "reader");
            reader.connect();
            Clients.Inbox<Mqtt5Publish> retained = Clients.inbox(reader);
            reader.subscribeWith().topicFilter("config/#").send();
            assertArrayEquals("speed=3".getBytes(), retained.next().getPayloadAsBytes());

            try (RawClient payer = raw(second)) {
                payer.send(RawClient.connect(5, "payer", 0x00, 60, expiry(3600))).read();
                byte[] resend = RawClient.publish(5, "orders/2", 2, 9, new byte[0], "once".getBytes());
                resend[0] |= 0x08;
                payer.send(resend);
                assertEquals(PUBREC, payer.read().type());
                payer.send(RawClient.ack(PUBREL, 9));
                assertEquals(PUBCOMP, payer.read().type());
            }

            Mqtt5BlockingClient subscriber = client(second, "subscriber");
            Clients.Inbox<Mqtt5Publish> orders = Clients.inbox(subscriber);
            assertTrue(subscriber.connectWith().cleanStart(false).sessionExpiryInterval(3600).send().isSessionPresent());
            assertEquals("queued", new String(orders.next().getPayloadAsBytes(), StandardCharsets.UTF_8));
            assertEquals("once", new String(orders.next().getPayloadAsBytes(), StandardCharsets.UTF_8));
            assertNull(orders.poll(300), "the resent QoS 2 PUBLISH was not routed a second time");

            try (RawClient q2 = raw(second)) {
                RawClient.Packet connAck = q2.send(RawClient.connect(5, "q2-subscriber", 0x00, 60, expiry(3600))).read();
                assertEquals(1, connAck.u8(0), "session present");
                RawClient.Packet next = q2.read();
                assertEquals(PUBREL, next.type(), "the payment is released, not delivered again");
                assertEquals(inflightPacketId, next.u16(0));
                q2.send(RawClient.ack(PUBCOMP, inflightPacketId));
            }
            subscriber.disconnect();
            reader.disconnect();
        }
    }

    @Test
    void sessionExpiryKeepsCountingWhileTheServerIsDown() throws Exception {
        try (ServerProcess first = ServerProcess.start(dir, "")) {
            Mqtt5BlockingClient client = client(first, "short-lived");
            client.connectWith().sessionExpiryInterval(2).send();
            client.subscribeWith().topicFilter("x").send();
            client.disconnect();
            long disconnected = System.nanoTime();
            assertEquals(143, first.terminate());
            Eventually.await(() -> System.nanoTime() - disconnected > 2_500_000_000L,
                    "the expiry interval passed while the server was down");
        }
        try (ServerProcess second = ServerProcess.start(dir, "")) {
            Mqtt5BlockingClient client = client(second, "short-lived");
            assertFalse(client.connectWith().cleanStart(false).sessionExpiryInterval(2).send().isSessionPresent(),
                    "the session expired while the server was down");
            client.disconnect();
        }
    }

    @Test
    void aDamagedStateLogIsCutToItsValidPrefixAndTheServerStarts() throws Exception {
        try (ServerProcess first = ServerProcess.start(dir, "")) {
            Mqtt5BlockingClient publisher = client(first, "publisher");
            publisher.connect();
            for (int i = 0; i < 20; i++) {
                publisher.publishWith().topic("r/" + i).retain(true).qos(MqttQos.AT_LEAST_ONCE)
                        .payload(("v" + i).getBytes()).send();
            }
            assertEquals(143, first.terminate());
        }
        Path log;
        try (Stream<Path> files = Files.walk(dir.resolve("state"))) {
            log = files.filter(p -> p.toString().endsWith(".log"))
                    .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
        }
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "rw")) {
            file.seek(file.length());
            file.write("a torn write from a power cut".getBytes()); // garbage after the last batch
        }
        try (ServerProcess second = ServerProcess.start(dir, "")) {
            Mqtt5BlockingClient reader = client(second, "reader");
            reader.connect();
            Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(reader);
            reader.subscribeWith().topicFilter("r/#").send();
            for (int i = 0; i < 20; i++) {
                inbox.next();
            }
            assertTrue(second.output().stream().anyMatch(l -> l.contains("cut") && l.contains(log.getFileName().toString())),
                    "what was cut is logged: " + second.output());
            reader.disconnect();
        }
    }
}
