package io.sluice.broker.sys;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.TestBroker;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SysTopicsTest {
    private TestBroker broker;
    private SysTopics sys;

    @BeforeEach
    void start() {
        broker = TestBroker.start();
        sys = new SysTopics(broker.broker(), "sluice test", 100);
        sys.addSource(() -> Map.of("exchange/mq1/captured", 42L));
        sys.start();
    }

    @AfterEach
    void stop() {
        sys.close();
        broker.close();
    }

    /** Keeps the latest value of every $SYS topic a client receives. */
    private static Map<String, String> watch(Mqtt5BlockingClient client) {
        Map<String, String> latest = new ConcurrentHashMap<>();
        client.toAsync().publishes(com.hivemq.client.mqtt.MqttGlobalPublishFilter.ALL, (Mqtt5Publish p) ->
                latest.put(p.getTopic().toString(), new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8)));
        return latest;
    }

    @Test
    void theBrokersStateIsPublishedUnderMosquittosNamesAndFollowsTraffic() {
        Mqtt5BlockingClient watcher = Clients.v5(broker, "watcher");
        watcher.connect();
        Map<String, String> values = watch(watcher);
        watcher.subscribeWith().topicFilter("$SYS/broker/#").send();
        Mqtt5BlockingClient other = Clients.v5(broker, "other");
        other.connect();
        for (int i = 0; i < 5; i++) {
            other.publishWith().topic("traffic").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[100]).send();
        }

        // Values go out in a fixed order, counters/ last but one: once it shows five, the rest of its round is in.
        Eventually.await(() ->
                "2".equals(values.get("$SYS/broker/clients/connected"))
                        && "5".equals(values.get("$SYS/broker/counters/messages_received")), "two clients and five messages show up");
        assertEquals("sluice test", values.get("$SYS/broker/version"));
        assertTrue(values.get("$SYS/broker/uptime").matches("\\d+ seconds"), values.get("$SYS/broker/uptime"));
        assertEquals("2", values.get("$SYS/broker/clients/total"));
        assertEquals("0", values.get("$SYS/broker/clients/disconnected"));
        assertEquals("1", values.get("$SYS/broker/subscriptions/count"));
        assertTrue(Long.parseLong(values.get("$SYS/broker/bytes/received")) >= 500);
        assertTrue(Long.parseLong(values.get("$SYS/broker/retained messages/count")) > 0, "$SYS values are retained");
        assertEquals("42", values.get("$SYS/broker/exchange/mq1/captured"), "contributed values are published too");
        assertEquals("5", values.get("$SYS/broker/messages/received"));

        other.disconnect();
        Eventually.await(() -> "1".equals(values.get("$SYS/broker/clients/connected")), "the leaving client is counted");
        watcher.disconnect();
    }

    @Test
    void aLateSubscriberGetsTheCurrentValuesAtOnceBecauseTheyAreRetained() throws Exception {
        Eventually.await(() -> broker.broker().router().retained().size() > 10, "a first round is published");
        Mqtt5BlockingClient late = Clients.v5(broker, "late");
        late.connect();
        var inbox = Clients.inbox(late);
        late.subscribeWith().topicFilter("$SYS/broker/version").send();
        Mqtt5Publish version = inbox.next();
        assertTrue(version.isRetain());
        assertEquals("sluice test", new String(version.getPayloadAsBytes(), StandardCharsets.UTF_8));
        late.disconnect();
    }

    @Test
    void aWildcardSubscriptionDoesNotReceiveSysTopics() throws Exception {
        Mqtt5BlockingClient everything = Clients.v5(broker, "everything");
        everything.connect();
        var inbox = Clients.inbox(everything);
        everything.subscribeWith().topicFilter("#").send();
        sys.publishNow();
        assertEquals(null, inbox.poll(300), "$ topics are not matched by a leading wildcard");
        everything.disconnect();
    }
}
