package io.sluice.broker.persistence;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.sluice.broker.testing.RawClient.PUBLISH;
import static io.sluice.broker.testing.RawClient.PUBREL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Broker state across restarts of an in-process broker; the process-level tests are in the server package. */
class BrokerStateTest {
    @TempDir
    Path dir;

    private static byte[] expiry(long seconds) {
        return new RawClient.Bytes().u8(0x11).u32(seconds).toByteArray();
    }

    @Test
    void aRetainedMessageKeepsItsPropertiesAndItsRemainingExpiry() throws Exception {
        try (PersistentBroker first = new PersistentBroker(dir)) {
            Mqtt5BlockingClient pub = Clients.v5(first.broker, "pub");
            pub.connect();
            pub.publishWith().topic("status/line1").retain(true).qos(MqttQos.AT_LEAST_ONCE)
                    .payload("up".getBytes(StandardCharsets.UTF_8)).contentType("text/plain")
                    .messageExpiryInterval(3600).userProperties().add("site", "north").applyUserProperties().send();
            pub.disconnect();
        }
        try (PersistentBroker second = new PersistentBroker(dir)) {
            Mqtt5BlockingClient sub = Clients.v5(second.broker, "sub");
            sub.connect();
            Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);
            sub.subscribeWith().topicFilter("status/#").send();
            Mqtt5Publish retained = inbox.next();
            assertTrue(retained.isRetain());
            assertArrayEquals("up".getBytes(StandardCharsets.UTF_8), retained.getPayloadAsBytes());
            assertEquals("text/plain", retained.getContentType().orElseThrow().toString());
            assertEquals("north", retained.getUserProperties().asList().get(0).getValue().toString());
            long remaining = retained.getMessageExpiryInterval().orElseThrow();
            assertTrue(remaining <= 3600 && remaining > 3500, "remaining expiry " + remaining);
            sub.disconnect();
        }
    }

    @Test
    void aDeletedRetainedMessageStaysDeleted() throws Exception {
        try (PersistentBroker first = new PersistentBroker(dir)) {
            Mqtt5BlockingClient pub = Clients.v5(first.broker, "pub");
            pub.connect();
            pub.publishWith().topic("gone").retain(true).payload("x".getBytes()).send();
            pub.publishWith().topic("gone").retain(true).payload(new byte[0]).send();
            pub.publishWith().topic("kept").retain(true).payload("y".getBytes()).send();
            pub.disconnect();
        }
        try (PersistentBroker second = new PersistentBroker(dir)) {
            assertNull(second.engine().router().retained().get("gone"));
            assertEquals(1, second.engine().router().retained().size());
        }
    }

    @Test
    void aPersistentSessionKeepsSubscriptionOptionsIdentifiersAndQueuedMessages() throws Exception {
        try (PersistentBroker first = new PersistentBroker(dir)) {
            try (RawClient raw = first.broker.raw()) {
                raw.send(RawClient.connect(5, "keeper", 0x02, 60, expiry(3600))).read();
                byte[] props = new RawClient.Bytes().u8(0x0B).vbi(42).toByteArray();
                raw.send(RawClient.packet(0x82, new RawClient.Bytes().u16(1).vbi(props.length).raw(props)
                        .string("orders/+").u8(0x01 | 0x04 | 0x08).toByteArray())).readUntil(RawClient.SUBACK);
                raw.send(new byte[] {(byte) 0xE0, 0});
            }
            Eventually.await(() -> !first.engine().sessions().get("keeper").isOnline(), "offline");
            Mqtt5BlockingClient pub = Clients.v5(first.broker, "pub");
            pub.connect();
            for (int i = 0; i < 3; i++) {
                pub.publishWith().topic("orders/" + i).qos(MqttQos.AT_LEAST_ONCE).payload(("o" + i).getBytes()).send();
            }
            pub.disconnect();
            assertEquals(3, first.engine().sessions().get("keeper").queuedMessages());
        }
        try (PersistentBroker second = new PersistentBroker(dir)) {
            var session = second.engine().sessions().get("keeper");
            assertEquals(3, session.queuedMessages());
            var subscription = session.subscriptions().get(0);
            assertEquals(42, subscription.identifier());
            assertTrue(subscription.noLocal());
            assertTrue(subscription.retainAsPublished());
            try (RawClient raw = second.broker.raw()) {
                RawClient.Packet connAck = raw.send(RawClient.connect(5, "keeper", 0x00, 60, expiry(3600))).read();
                assertEquals(1, connAck.u8(0), "session present");
                for (int i = 0; i < 3; i++) {
                    RawClient.Publish p = RawClient.parsePublish(raw.readUntil(PUBLISH), true);
                    assertEquals("orders/" + i, p.topic());
                    assertEquals(42, p.property(0x0B));
                    raw.send(RawClient.ack(RawClient.PUBACK, p.packetId()));
                }
            }
        }
    }

    @Test
    void anOutboundQos2MessageAwaitingPubcompIsCompletedExactlyOnceAfterARestart() throws Exception {
        int packetId;
        try (PersistentBroker first = new PersistentBroker(dir)) {
            try (RawClient raw = first.broker.raw()) {
                raw.send(RawClient.connect(4, "q2", 0x00, 60, new byte[0])).read();
                raw.send(RawClient.subscribe(4, 1, "q2", 2)).readUntil(RawClient.SUBACK);
                Mqtt5BlockingClient pub = Clients.v5(first.broker, "pub");
                pub.connect();
                pub.publishWith().topic("q2").qos(MqttQos.EXACTLY_ONCE).payload("once".getBytes()).send();
                pub.disconnect();
                RawClient.Publish p = RawClient.parsePublish(raw.readUntil(PUBLISH), false);
                packetId = p.packetId();
                raw.send(RawClient.ack(RawClient.PUBREC, packetId));
                assertEquals(packetId, raw.readUntil(PUBREL).u16(0));
            }
            Eventually.await(() -> !first.engine().sessions().get("q2").isOnline(), "awaiting PUBCOMP recorded");
        }
        try (PersistentBroker second = new PersistentBroker(dir);
             RawClient raw = second.broker.raw()) {
            raw.send(RawClient.connect(4, "q2", 0x00, 60, new byte[0])).read();
            RawClient.Packet next = raw.read();
            assertEquals(PUBREL, next.type(), "PUBREL again, never the PUBLISH");
            assertEquals(packetId, next.u16(0));
            raw.send(RawClient.ack(RawClient.PUBCOMP, packetId));
            Eventually.await(() -> second.engine().sessions().get("q2").inflightMessages() == 0, "complete");
        }
    }

    @Test
    void anInboundQos2PublishResentAfterARestartIsNotRoutedTwice() throws Exception {
        try (PersistentBroker first = new PersistentBroker(dir)) {
            Mqtt5BlockingClient sub = Clients.v5(first.broker, "sub");
            sub.connectWith().sessionExpiryInterval(3600).send();
            sub.subscribeWith().topicFilter("pay").qos(MqttQos.EXACTLY_ONCE).send();
            sub.disconnect();
            try (RawClient pub = first.broker.raw()) {
                pub.send(RawClient.connect(5, "payer", 0x00, 60, expiry(3600))).read();
                pub.send(RawClient.publish(5, "pay", 2, 7, new byte[0], "10 EUR".getBytes()));
                assertEquals(RawClient.PUBREC, pub.read().type());
            }
            Eventually.await(() -> first.engine().sessions().get("sub").queuedMessages() == 1, "queued");
        }
        try (PersistentBroker second = new PersistentBroker(dir)) {
            try (RawClient pub = second.broker.raw()) {
                pub.send(RawClient.connect(5, "payer", 0x00, 60, expiry(3600))).read();
                byte[] resend = RawClient.publish(5, "pay", 2, 7, new byte[0], "10 EUR".getBytes());
                resend[0] |= 0x08; // DUP
                pub.send(resend);
                assertEquals(RawClient.PUBREC, pub.read().type());
                pub.send(RawClient.ack(PUBREL, 7));
                assertEquals(RawClient.PUBCOMP, pub.read().type());
            }
            Mqtt5BlockingClient sub = Clients.v5(second.broker, "sub");
            Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);
            assertTrue(sub.connectWith().cleanStart(false).sessionExpiryInterval(3600).send().isSessionPresent());
            assertArrayEquals("10 EUR".getBytes(), inbox.next().getPayloadAsBytes());
            assertNull(inbox.poll(300), "exactly once");
            sub.disconnect();
        }
    }

    @Test
    void sessionExpiryKeepsCountingWhileTheBrokerIsDown() throws Exception {
        try (PersistentBroker first = new PersistentBroker(dir)) {
            Mqtt5BlockingClient client = Clients.v5(first.broker, "brief");
            client.connectWith().sessionExpiryInterval(1).send();
            client.subscribeWith().topicFilter("b").send();
            client.disconnect();
            Eventually.await(() -> !first.engine().sessions().get("brief").isOnline(), "offline");
        }
        long down = System.nanoTime();
        Eventually.await(() -> System.nanoTime() - down > 1_200_000_000L, "longer than the expiry interval passed");
        try (PersistentBroker second = new PersistentBroker(dir)) {
            assertNull(second.engine().sessions().get("brief"), "expired while the broker was down");
            assertEquals(0, second.engine().router().subscriptionCount());
        }
        try (PersistentBroker third = new PersistentBroker(dir)) {
            assertNull(third.engine().sessions().get("brief"), "and its records are gone for good");
        }
    }

    @Test
    void aDelayedWillPendingAtShutdownGoesOutAfterTheRestart() throws Exception {
        try (PersistentBroker first = new PersistentBroker(dir)) {
            try (RawClient raw = first.broker.raw()) {
                byte[] willProps = new RawClient.Bytes().u8(0x18).u32(1).toByteArray();
                RawClient.Bytes b = new RawClient.Bytes().string("MQTT").u8(5).u8(0x04 | 0x08).u16(60)
                        .vbi(5).raw(expiry(3600)).string("dying").vbi(willProps.length).raw(willProps)
                        .string("wills/dying").string("bye");
                raw.send(RawClient.packet(0x10, b.toByteArray())).read();
            }
            Eventually.await(() -> first.engine().sessions().get("dying") != null
                    && first.engine().sessions().get("dying").snapshot().pendingWill() != null, "will pending");
        }
        try (PersistentBroker second = new PersistentBroker(dir)) {
            Mqtt5BlockingClient watcher = Clients.v5(second.broker, "watcher");
            watcher.connect();
            Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(watcher);
            watcher.subscribeWith().topicFilter("wills/#").send();
            Mqtt5Publish will = inbox.next();
            assertEquals("wills/dying", will.getTopic().toString());
            watcher.disconnect();
        }
    }

    @Test
    void aDamagedStateFileLosesOnlyItsDamagedTailAndTheBrokerStarts() throws Exception {
        try (PersistentBroker first = new PersistentBroker(dir)) {
            Mqtt5BlockingClient pub = Clients.v5(first.broker, "pub");
            pub.connect();
            for (int i = 0; i < 50; i++) {
                pub.publishWith().topic("r/" + i).retain(true).qos(MqttQos.AT_LEAST_ONCE)
                        .payload(("v" + i).getBytes()).send();
                CountDownLatch written = new CountDownLatch(1);
                first.state.journal().whenWritten(written::countDown); // one batch per message
                assertTrue(written.await(5, TimeUnit.SECONDS));
            }
            pub.disconnect();
        }
        Path segment;
        try (Stream<Path> files = Files.walk(dir)) {
            segment = files.filter(p -> p.toString().endsWith(".log"))
                    .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
        }
        long length = Files.size(segment);
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
            file.seek(length - 40);
            file.write(new byte[] {0x13, 0x37, 0x13, 0x37, 0x13, 0x37, 0x13, 0x37});
        }
        try (PersistentBroker second = new PersistentBroker(dir)) {
            int kept = second.engine().router().retained().size();
            assertEquals(49, kept, "the valid prefix is kept, the damaged last batch lost");
            assertNull(second.engine().router().retained().get("r/49"));
            Mqtt5BlockingClient probe = Clients.v5(second.broker, "probe");
            probe.connect();
            probe.disconnect();
        }
    }
}
