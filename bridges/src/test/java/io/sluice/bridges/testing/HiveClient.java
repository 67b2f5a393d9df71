package io.sluice.bridges.testing;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;

/**
 * An independent MQTT 5 client (HiveMQ's) on the remote side of a bridge: it subscribes and keeps
 * what arrives, and publishes. Optionally with a persistent session, so messages reach it across a
 * restart of a remote that persists sessions.
 */
public final class HiveClient implements AutoCloseable {
    private final Mqtt5AsyncClient client;
    private final List<Mqtt5Publish> received = new CopyOnWriteArrayList<>();
    private final String id;
    private final boolean persistent;

    private HiveClient(int port, String id, boolean persistent) {
        this.id = id;
        this.persistent = persistent;
        this.client = Mqtt5Client.builder().identifier(id).serverHost("127.0.0.1").serverPort(port).buildAsync();
        client.publishes(MqttGlobalPublishFilter.ALL, received::add);
    }

    /** Connects with a clean, non-persistent session. */
    public static HiveClient connect(int port) {
        return connect(port, "hive-" + UUID.randomUUID(), false);
    }

    /** Connects; a persistent session lives an hour after the connection ends. */
    public static HiveClient connect(int port, String id, boolean persistent) {
        HiveClient hive = new HiveClient(port, id, persistent);
        hive.connect();
        return hive;
    }

    private void connect() {
        client.connectWith().cleanStart(!persistent).sessionExpiryInterval(persistent ? 3600 : 0).send().join();
    }

    /** Connects again with the same id (and session). */
    public HiveClient reconnect() {
        connect();
        return this;
    }

    public HiveClient subscribe(String filter, int qos) {
        client.subscribeWith().topicFilter(filter).qos(MqttQos.fromCode(qos)).send().join();
        return this;
    }

    public void publish(String topic, String payload, int qos) {
        client.publishWith().topic(topic).qos(MqttQos.fromCode(qos)).payload(payload.getBytes(StandardCharsets.UTF_8))
                .send().join();
    }

    public List<Mqtt5Publish> received() {
        return List.copyOf(received);
    }

    /** The payloads received, as text, in order. */
    public List<String> payloads() {
        return received.stream().map(p -> new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8)).toList();
    }

    public List<String> topics() {
        return received.stream().map(p -> p.getTopic().toString()).toList();
    }

    public String id() {
        return id;
    }

    public void disconnect() {
        client.disconnect().join();
    }

    @Override
    public void close() {
        if (client.getState().isConnected()) {
            client.disconnect().join();
        }
    }
}
