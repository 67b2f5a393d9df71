package io.sluice.broker.connection;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.Mqtt5RetainHandling;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RetainedMessagesTest {
    private TestBroker broker;
    private Mqtt5BlockingClient publisher;

    @BeforeEach
    void start() {
        broker = TestBroker.start();
        publisher = Clients.v5(broker, "publisher");
        publisher.connect();
    }

    @AfterEach
    void stop() {
        publisher.disconnect();
        broker.close();
    }

    private void retain(String topic, String payload, MqttQos qos) {
        publisher.publishWith().topic(topic).qos(qos).retain(true)
                .payload(payload.getBytes(StandardCharsets.UTF_8)).send();
    }

    @Test
    void aNewSubscriberGetsTheRetainedMessagesOfItsFilterWithTheRetainFlag() throws Exception {
        retain("status/a", "up", MqttQos.AT_LEAST_ONCE);
        retain("status/b", "down", MqttQos.EXACTLY_ONCE);
        retain("other/c", "x", MqttQos.AT_LEAST_ONCE);
        Mqtt5BlockingClient sub = Clients.v5(broker, "sub");
        sub.connect();
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);
        sub.subscribeWith().topicFilter("status/+").qos(MqttQos.AT_LEAST_ONCE).send();

        Set<String> got = new HashSet<>();
        for (int i = 0; i < 2; i++) {
            Mqtt5Publish p = inbox.next();
            assertTrue(p.isRetain());
            assertEquals(MqttQos.AT_LEAST_ONCE, p.getQos(), "min(retained QoS, granted QoS)");
            got.add(p.getTopic() + "=" + new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8));
        }
        assertEquals(Set.of("status/a=up", "status/b=down"), got);
        assertNull(inbox.poll(200));
        sub.disconnect();
    }

    @Test
    void anEmptyRetainedPayloadDeletesTheRetainedMessage() throws Exception {
        retain("gone", "soon", MqttQos.AT_LEAST_ONCE);
        Eventually.await(() -> broker.broker().router().retained().size() == 1, "stored");
        retain("gone", "", MqttQos.AT_LEAST_ONCE);
        assertEquals(0, broker.broker().router().retained().size());
        Mqtt5BlockingClient sub = Clients.v5(broker, "sub");
        sub.connect();
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);
        sub.subscribeWith().topicFilter("gone").send();
        assertNull(inbox.poll(300));
        sub.disconnect();
    }

    @Test
    void retainHandlingOneSendsOnlyForANewSubscriptionAndTwoNever() throws Exception {
        retain("r", "v", MqttQos.AT_LEAST_ONCE);
        Mqtt5BlockingClient sub = Clients.v5(broker, "sub");
        sub.connect();
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);

        sub.subscribeWith().topicFilter("r").retainHandling(Mqtt5RetainHandling.SEND_IF_SUBSCRIPTION_DOES_NOT_EXIST)
                .send();
        assertTrue(inbox.next().isRetain());
        sub.subscribeWith().topicFilter("r").retainHandling(Mqtt5RetainHandling.SEND_IF_SUBSCRIPTION_DOES_NOT_EXIST)
                .send();
        assertNull(inbox.poll(300), "handling 1 does not resend for an existing subscription");
        sub.subscribeWith().topicFilter("r").retainHandling(Mqtt5RetainHandling.SEND).send();
        assertTrue(inbox.next().isRetain(), "handling 0 sends on every subscribe");
        sub.subscribeWith().topicFilter("r").retainHandling(Mqtt5RetainHandling.DO_NOT_SEND).send();
        assertNull(inbox.poll(300), "handling 2 never sends");
        sub.disconnect();
    }

    @Test
    void retainAsPublishedKeepsTheFlagOnLiveMessagesOtherwiseItIsCleared() throws Exception {
        Mqtt5BlockingClient keep = Clients.v5(broker, "keep");
        Mqtt5BlockingClient clear = Clients.v5(broker, "clear");
        keep.connect();
        clear.connect();
        Clients.Inbox<Mqtt5Publish> keepInbox = Clients.inbox(keep);
        Clients.Inbox<Mqtt5Publish> clearInbox = Clients.inbox(clear);
        keep.subscribeWith().topicFilter("live").retainAsPublished(true).send();
        clear.subscribeWith().topicFilter("live").send();

        retain("live", "now", MqttQos.AT_LEAST_ONCE);
        assertTrue(keepInbox.next().isRetain());
        assertFalse(clearInbox.next().isRetain());
        keep.disconnect();
        clear.disconnect();
    }

    @Test
    void aWildcardSubscribeFindsItsMessagesAmongHundredThousandRetainedTopics() throws Exception {
        for (int i = 0; i < 100_000; i++) {
            broker.broker().router().publish(new Message("fleet/" + (i % 1000) + "/s/" + i / 1000,
                    new byte[] {1}, 0, true, MessageProperties.NONE, "loader", System.currentTimeMillis()));
        }
        assertEquals(100_000, broker.broker().router().retained().size());
        Mqtt5BlockingClient sub = Clients.v5(broker, "sub");
        sub.connect();
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);
        sub.subscribeWith().topicFilter("fleet/42/s/+").send();
        Set<String> topics = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            topics.add(inbox.next().getTopic().toString());
        }
        assertEquals(100, topics.size());
        assertNull(inbox.poll(200));
        sub.disconnect();
    }
}
