package io.sluice.broker.connection;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.session.Session;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class SlowSubscriberTest {

    @Test
    void aSubscriberThatNeverReadsFillsOnlyItsOwnBoundedQueueAndOthersKeepReceiving() throws Exception {
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().maxMqueueLen(100).build());
             RawClient stuck = broker.raw()) {
            stuck.send(RawClient.connect(5, "stuck")).read();
            stuck.send(RawClient.subscribe(5, 1, "firehose", 0)).readUntil(RawClient.SUBACK);
            // From here on the stuck client reads nothing; its socket buffers fill up.
            Mqtt5BlockingClient healthy = Clients.v5(broker, "healthy");
            healthy.connect();
            Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(healthy);
            healthy.subscribeWith().topicFilter("firehose").send();
            Mqtt5BlockingClient pub = Clients.v5(broker, "pub");
            pub.connect();
            byte[] payload = new byte[4096];
            int total = 5_000;
            // QoS 1 paces the publisher by its PUBACKs, which the broker sends after routing each message.
            for (int i = 0; i < total; i++) {
                pub.publishWith().topic("firehose").qos(MqttQos.AT_LEAST_ONCE).payload(payload).send();
            }
            for (int i = 0; i < total; i++) {
                inbox.next();
            }
            Session session = broker.broker().sessions().get("stuck");
            Eventually.await(() -> broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL) > 0,
                    "the stuck client's drops are counted");
            assertTrue(session.queuedMessages() <= 100, "queue stays within max_mqueue_len");
            pub.disconnect();
            healthy.disconnect();
        }
    }
}
