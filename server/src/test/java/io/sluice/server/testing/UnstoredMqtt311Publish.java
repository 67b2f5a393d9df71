package io.sluice.server.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.server.SluiceServer;
import io.sluice.testing.Eventually;
import io.sluice.testing.SmallDisk;
import java.io.IOException;
import java.util.Set;
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
    /** Messages sent before one was refused: the broker found room for them, as the disk's other users free pages. */
    private static final int ATTEMPTS = 5;
    private final MqttAsyncClient paho;
    private final MqttConnectOptions options;
    private final IMqttDeliveryToken token;
    private final String id;

    private UnstoredMqtt311Publish(MqttAsyncClient paho, MqttConnectOptions options, IMqttDeliveryToken token, String id) {
        this.paho = paho;
        this.options = options;
        this.token = token;
        this.id = id;
    }

    /**
     * Fills {@code disk} and publishes {@link IdPayloads#payload(String) id} {@code prefix-0} on
     * {@code data/x}; asserts it is counted as not stored and gets no PUBACK (the broker must decide
     * within the wait: a PUBLISH neither acknowledged nor counted fails). The broker may have
     * freed pages since the fill (a failed attempt's temporary file, a trimmed segment) and stored
     * the message after all, rightly acknowledging it: then it goes to {@code acknowledged}, and the
     * disk is filled again for {@code prefix-1}, and so on.
     */
    public static UnstoredMqtt311Publish send(SluiceServer server, SmallDisk disk, String prefix, Set<String> acknowledged)
            throws MqttException, IOException {
        MqttAsyncClient paho = new MqttAsyncClient("tcp://127.0.0.1:" + server.address("tcp").getPort(), "paho",
                new MemoryPersistence());
        MqttConnectOptions options = new MqttConnectOptions();
        options.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        options.setCleanSession(false);
        paho.connect(options).waitForCompletion(10_000);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            String id = prefix + "-" + attempt;
            disk.fill();
            long notStoredBefore = server.broker().metrics().get(BrokerCounter.PUBLISH_NOT_STORED);
            IMqttDeliveryToken token = paho.publish("data/x", IdPayloads.payload(id), 1, false);
            Eventually.await(() -> token.isComplete()
                            || server.broker().metrics().get(BrokerCounter.PUBLISH_NOT_STORED) > notStoredBefore,
                    "the MQTT 3.1.1 PUBLISH " + id + " is acknowledged or counted as not stored");
            if (!token.isComplete()) {
                return new UnstoredMqtt311Publish(paho, options, token, id);
            }
            assertNull(token.getException(), "the MQTT 3.1.1 PUBLISH " + id + " was stored after all");
            acknowledged.add(id);
        }
        throw new AssertionError(ATTEMPTS + " MQTT 3.1.1 PUBLISHes on a full disk were all stored");
    }

    /**
     * Drops the connection and reconnects; asserts that the message not stored, sent again, is
     * acknowledged, and returns its id.
     */
    public String reconnectAndAssertAcknowledged() throws MqttException {
        assertFalse(token.isComplete(), "an MQTT 3.1.1 publisher got no PUBACK for " + id + " while it was not stored");
        paho.disconnectForcibly(0, 5_000);
        paho.connect(options).waitForCompletion(10_000);
        token.waitForCompletion(30_000);
        assertTrue(token.isComplete() && token.getException() == null, "the resent MQTT 3.1.1 PUBLISH " + id + " is acknowledged");
        return id;
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
