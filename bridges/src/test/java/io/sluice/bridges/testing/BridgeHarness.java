package io.sluice.bridges.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.bridges.Bridge;
import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.Bridges;
import io.sluice.bridges.CacheSettings;
import io.sluice.bridges.Forwarder;
import io.sluice.bridges.MessageProperties;
import io.sluice.bridges.kafka.KafkaBridgeSettings;
import io.sluice.bridges.mqtt.MqttBridgeSettings;

/**
 * One bridge opened the way the server opens it, with the test standing in for the broker: it
 * hands messages to the bridge's forwarders as the broker's taps would, and counts the held
 * acknowledgements the bridge releases.
 */
public final class BridgeHarness implements AutoCloseable {
    private final Bridges bridges;
    private final CollectingPublisher local = new CollectingPublisher();
    private final AtomicInteger released = new AtomicInteger();
    private final AtomicInteger held = new AtomicInteger();

    /** The node id of the Sluice the harness stands in for ({@code bridges.node_id}). */
    public static final String NODE_ID = "harness";

    private BridgeHarness(List<MqttBridgeSettings> mqtt, List<KafkaBridgeSettings> kafka, CacheSettings cache) {
        this.bridges = Bridges.open(NODE_ID, mqtt, cache, kafka, cache, local);
    }

    public static BridgeHarness mqtt(MqttBridgeSettings settings, Path dir) {
        return new BridgeHarness(List.of(settings), List.of(), CacheSettings.defaults(dir));
    }

    public static BridgeHarness mqtt(MqttBridgeSettings settings, CacheSettings cache) {
        return new BridgeHarness(List.of(settings), List.of(), cache);
    }

    public static BridgeHarness kafka(KafkaBridgeSettings settings, Path dir) {
        return new BridgeHarness(List.of(), List.of(settings), CacheSettings.defaults(dir));
    }

    public BridgeHarness start() {
        bridges.start();
        return this;
    }

    public Bridge bridge() {
        return bridges.all().get(0);
    }

    public CollectingPublisher local() {
        return local;
    }

    /**
     * A local publish of {@code payload} to {@code topic} as client {@code publisher}: every matching
     * forwarder takes it; a QoS 1/2 message's acknowledgement is held until the bridge releases it.
     */
    public void publish(String publisher, String topic, String payload, int qos) {
        BridgeMessage message = new BridgeMessage(topic, payload.getBytes(StandardCharsets.UTF_8), qos, false,
                MessageProperties.NONE, publisher, System.currentTimeMillis());
        publish(message);
    }

    public void publish(BridgeMessage message) {
        for (Forwarder forwarder : bridges.forwarders()) {
            if (io.sluice.bridges.mqtt.TopicFilter.matches(forwarder.filter(), message.topic())) {
                Runnable release = message.qos() > 0 ? released::incrementAndGet : null;
                if (message.qos() > 0) {
                    held.incrementAndGet();
                }
                if (!forwarder.forward(message, release) && release != null) {
                    release.run();
                }
            }
        }
    }

    /** Held acknowledgements the bridge released (the message is durable in its backlog, or was not stored). */
    public int released() {
        return released.get();
    }

    public int held() {
        return held.get();
    }

    @Override
    public void close() {
        bridges.close();
    }
}
