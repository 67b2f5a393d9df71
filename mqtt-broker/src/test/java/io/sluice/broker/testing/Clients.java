package io.sluice.broker.testing;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Real MQTT clients pointed at a {@link TestBroker}, and inboxes that collect what they receive. */
public final class Clients {
    private Clients() {
    }

    /** An MQTT 5 HiveMQ client, not yet connected. */
    public static Mqtt5BlockingClient v5(TestBroker broker, String clientId) {
        return MqttClient.builder().useMqttVersion5().identifier(clientId)
                .serverHost(broker.host()).serverPort(broker.port()).buildBlocking();
    }

    /** An MQTT 3.1.1 HiveMQ client, not yet connected. */
    public static Mqtt3BlockingClient v3(TestBroker broker, String clientId) {
        return MqttClient.builder().useMqttVersion3().identifier(clientId)
                .serverHost(broker.host()).serverPort(broker.port()).buildBlocking();
    }

    /** Starts collecting every PUBLISH the client receives; call before subscribing. */
    public static Inbox<Mqtt5Publish> inbox(Mqtt5BlockingClient client) {
        Inbox<Mqtt5Publish> inbox = new Inbox<>();
        client.toAsync().publishes(MqttGlobalPublishFilter.ALL, inbox.queue::add);
        return inbox;
    }

    /** Starts collecting every PUBLISH the client receives; call before subscribing. */
    public static Inbox<Mqtt3Publish> inbox(Mqtt3BlockingClient client) {
        Inbox<Mqtt3Publish> inbox = new Inbox<>();
        client.toAsync().publishes(MqttGlobalPublishFilter.ALL, inbox.queue::add);
        return inbox;
    }

    /** Messages received by one client, in order. */
    public static final class Inbox<T> {
        final BlockingQueue<T> queue = new LinkedBlockingQueue<>();

        /** The next message, failing the test if none arrives within 5 seconds. */
        public T next() throws InterruptedException {
            T message = queue.poll(5, TimeUnit.SECONDS);
            assertNotNull(message, "no message arrived within 5 s");
            return message;
        }

        /** The next message if one arrives within {@code millis}, else null; for asserting absence. */
        public T poll(long millis) throws InterruptedException {
            return queue.poll(millis, TimeUnit.MILLISECONDS);
        }

        public int size() {
            return queue.size();
        }
    }
}
