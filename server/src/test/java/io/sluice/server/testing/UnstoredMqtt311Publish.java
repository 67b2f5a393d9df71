package io.sluice.server.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.server.SluiceServer;
import io.sluice.testing.Eventually;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

/**
 * A QoS 1 message from an MQTT 3.1.1 publisher (Paho, persistent session) that the broker cannot
 * store: 3.1.1 has no negative PUBACK, so the broker must send none, and the client sends the
 * message again when it reconnects. The disk-full tests check both halves.
 */
public final class UnstoredMqtt311Publish implements AutoCloseable {
    private final MqttAsyncClient paho;
    private final MqttConnectOptions options;
    private final IMqttDeliveryToken token;

    private UnstoredMqtt311Publish(MqttAsyncClient paho, MqttConnectOptions options, IMqttDeliveryToken token) {
        this.paho = paho;
        this.options = options;
        this.token = token;
    }

    /** Publishes {@link IdPayloads#payload(String) id} on {@code data/x}; asserts it is counted as not stored and gets no PUBACK. */
    public static UnstoredMqtt311Publish send(SluiceServer server, String id) throws MqttException {
        long notStoredBefore = server.broker().metrics().get(BrokerCounter.PUBLISH_NOT_STORED);
        MqttAsyncClient paho = new MqttAsyncClient("tcp://127.0.0.1:" + server.address("tcp").getPort(), "paho",
                new MemoryPersistence());
        MqttConnectOptions options = new MqttConnectOptions();
        options.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        options.setCleanSession(false);
        paho.connect(options).waitForCompletion(10_000);
        IMqttDeliveryToken token = paho.publish("data/x", IdPayloads.payload(id), 1, false);
        Eventually.await(() -> server.broker().metrics().get(BrokerCounter.PUBLISH_NOT_STORED) > notStoredBefore,
                "the MQTT 3.1.1 PUBLISH is counted as not stored");
        assertFalse(token.isComplete(), "an MQTT 3.1.1 publisher gets no PUBACK for a message not stored");
        return new UnstoredMqtt311Publish(paho, options, token);
    }

    /** Drops the connection and reconnects; asserts that the message, sent again, is acknowledged. */
    public void reconnectAndAssertAcknowledged() throws MqttException {
        paho.disconnectForcibly(0, 5_000);
        paho.connect(options).waitForCompletion(10_000);
        token.waitForCompletion(30_000);
        assertTrue(token.isComplete() && token.getException() == null, "the resent MQTT 3.1.1 PUBLISH is acknowledged");
    }

    @Override
    public void close() throws MqttException {
        try {
            if (paho.isConnected()) {
                paho.disconnect().waitForCompletion(10_000);
            }
        } finally {
            paho.close();
        }
    }
}
