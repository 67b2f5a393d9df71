package io.sluice.broker.connection;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A burst of QoS 0 messages written in one go, smaller than the subscriber's socket buffers plus
 * {@code max_mqueue_len} messages, reaches a subscriber that keeps up, whole, whether the
 * publisher's connection shares the subscriber's event loop or not.
 */
class BurstTest {
    private static final int QUEUE = 1_000;
    private static final int BURST = 2_000;

    @Test
    void aBurstInOneTcpWriteIsNeverDroppedForASubscriberThatKeepsUp() throws Exception {
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().maxMqueueLen(QUEUE).build())) {
            Mqtt5BlockingClient subscriber = Clients.v5(broker, "reader");
            AtomicInteger received = new AtomicInteger();
            subscriber.toAsync().publishes(MqttGlobalPublishFilter.ALL, p -> received.incrementAndGet());
            subscriber.connect();
            subscriber.subscribeWith().topicFilter("burst/#").send();
            byte[] burst = burst();
            int expected = 0;
            // consecutive connections land on alternate event loops: rounds alternate shared and separate loops
            for (int round = 0; round < 6; round++) {
                try (RawClient publisher = broker.raw()) {
                    publisher.send(RawClient.connect(5, "burster-" + round)).read();
                    publisher.send(burst);
                    publisher.send(RawClient.publish(5, "burst/last", 0, 0, new byte[0], new byte[] {1}));
                    expected += BURST + 1;
                    int target = expected;
                    Eventually.await(() -> received.get() >= target
                                    || broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL) > 0,
                            () -> "round " + target / (BURST + 1) + ": " + received.get() + " of " + target);
                    assertEquals(0, broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL),
                            "no message of the burst dropped");
                    publisher.send(new byte[] {(byte) 0xE0, 0});
                }
            }
            Eventually.await(() -> received.get() == 6 * (BURST + 1), "every message once");
            subscriber.disconnect();
        }
    }

    /** {@value #BURST} QoS 0 PUBLISH packets of 100-byte payloads, in one byte array for one write. */
    private static byte[] burst() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] payload = new byte[100];
        for (int i = 0; i < BURST; i++) {
            out.writeBytes(RawClient.publish(5, "burst/" + (i % 10), 0, 0, new byte[0], payload));
        }
        return out.toByteArray();
    }
}
