package io.sluice.broker.connection;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAckReturnCode;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code mqtt.max_sessions}, {@code mqtt.max_sessions_per_address} and {@code mqtt.max_queued_bytes}: clients with ever new ids cannot take the broker's memory. */
class SessionBoundsTest {

    /** Connects a persistent MQTT 5 session subscribed to {@code t/#} and leaves it offline. */
    private static void leaveOffline(TestBroker broker, String clientId) {
        Mqtt5BlockingClient client = Clients.v5(broker, clientId);
        client.connectWith().cleanStart(true).sessionExpiryInterval(3600).send();
        client.subscribeWith().topicFilter("t/#").qos(MqttQos.AT_LEAST_ONCE).send();
        client.disconnect();
        broker.awaitOffline(clientId);
    }

    @Test
    void aNewSessionBeyondMaxSessionsEndsTheSessionOfflineLongest() {
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().maxSessions(3).build())) {
            leaveOffline(broker, "a");
            leaveOffline(broker, "b");
            leaveOffline(broker, "c");
            leaveOffline(broker, "d");
            assertNull(broker.broker().sessions().get("a"), "a, offline longest, made room for d");
            assertNotNull(broker.broker().sessions().get("b"));
            assertEquals(3, broker.broker().sessions().size());
            assertEquals(1, broker.broker().metrics().get(BrokerCounter.SESSIONS_EVICTED));

            Mqtt5BlockingClient returning = Clients.v5(broker, "a");
            assertFalse(returning.connectWith().cleanStart(false).sessionExpiryInterval(3600).send().isSessionPresent(),
                    "an evicted session is gone");
            assertNull(broker.broker().sessions().get("b"), "b was next");
            returning.disconnect();
        }
    }

    @Test
    void whenEverySessionIsOnlineANewOneIsRefused() {
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().maxSessions(2).build())) {
            Mqtt5BlockingClient x = Clients.v5(broker, "x");
            x.connect();
            Mqtt5BlockingClient y = Clients.v5(broker, "y");
            y.connect();
            Mqtt5ConnAckException v5 = assertThrows(Mqtt5ConnAckException.class, () -> Clients.v5(broker, "z").connect());
            assertEquals(Mqtt5ConnAckReasonCode.QUOTA_EXCEEDED, v5.getMqttMessage().getReasonCode());
            Mqtt3BlockingClient old = Clients.v3(broker, "z3");
            Mqtt3ConnAckException v3 = assertThrows(Mqtt3ConnAckException.class, old::connect);
            assertEquals(Mqtt3ConnAckReturnCode.SERVER_UNAVAILABLE, v3.getMqttMessage().getReturnCode());
            x.disconnect();
            y.disconnect();
        }
    }

    @Test
    void oneAddressHoldsAtMostMaxSessionsPerAddress() {
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().maxSessionsPerAddress(2).build())) {
            leaveOffline(broker, "a");
            leaveOffline(broker, "b");
            Mqtt5BlockingClient c = Clients.v5(broker, "c");
            c.connect();
            assertNull(broker.broker().sessions().get("a"), "a, offline longest at 127.0.0.1, made room for c");
            assertEquals(1, broker.broker().metrics().get(BrokerCounter.SESSIONS_EVICTED));
            Mqtt5BlockingClient d = Clients.v5(broker, "d");
            d.connect(); // b made room

            Mqtt5ConnAckException refused = assertThrows(Mqtt5ConnAckException.class,
                    () -> Clients.v5(broker, "e").connect());
            assertEquals(Mqtt5ConnAckReasonCode.QUOTA_EXCEEDED, refused.getMqttMessage().getReasonCode());
            Mqtt5BlockingClient again = Clients.v5(broker, "c");
            again.connect(); // an existing session is not a new one: it takes over
            again.disconnect();
            d.disconnect();
        }
    }

    @Test
    void beyondMaxQueuedBytesOfflineSessionsDropWhileOnlineOnesReceiveEverything() throws Exception {
        int payload = 1_000;
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().maxQueuedBytes(10 * payload).build())) {
            leaveOffline(broker, "away");
            Mqtt5BlockingClient present = Clients.v5(broker, "present");
            present.connect();
            Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(present);
            present.subscribeWith().topicFilter("t/#").qos(MqttQos.AT_LEAST_ONCE).send();
            Mqtt5BlockingClient pub = Clients.v5(broker, "pub");
            pub.connect();
            for (int i = 0; i < 20; i++) {
                pub.publishWith().topic("t/" + i).qos(MqttQos.AT_LEAST_ONCE).payload(new byte[payload]).send();
            }
            for (int i = 0; i < 20; i++) {
                assertEquals("t/" + i, inbox.next().getTopic().toString());
            }
            int queued = broker.broker().sessions().get("away").queuedMessages();
            assertTrue(queued > 0 && queued < 10, "the offline queue stopped at the total bound: " + queued);
            assertEquals(20 - queued, broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUED_BYTES));
            pub.disconnect();
            present.disconnect();
        }
    }
}
