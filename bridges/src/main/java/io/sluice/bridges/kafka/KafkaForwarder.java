package io.sluice.bridges.kafka;

import java.nio.charset.StandardCharsets;

import io.sluice.bridges.Bridge;
import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.Forwarder;
import io.sluice.bridges.backlog.BacklogRecord;

/**
 * One {@code forwards} rule of a Kafka bridge: every local message matching {@code local_topic},
 * of any QoS, is stored for Kafka topic {@code kafka_topic} with the key the rule chooses (the
 * MQTT topic, the publisher's client id, or none). {@code $SYS} topics are never forwarded.
 */
public final class KafkaForwarder implements Forwarder {
    private final KafkaBridgeSettings.KafkaForward rule;
    private final Bridge bridge;

    public KafkaForwarder(KafkaBridgeSettings.KafkaForward rule, Bridge bridge) {
        this.rule = rule;
        this.bridge = bridge;
    }

    @Override
    public String filter() {
        return rule.localTopic();
    }

    @Override
    public String bridge() {
        return bridge.name();
    }

    @Override
    public boolean forward(BridgeMessage message, Runnable release) {
        if (message.topic().startsWith("$SYS")) {
            return false;
        }
        byte[] key = switch (rule.key()) {
            case TOPIC -> message.topic().getBytes(StandardCharsets.UTF_8);
            case CLIENTID -> message.publisherId() == null ? null : message.publisherId().getBytes(StandardCharsets.UTF_8);
            case NONE -> null;
        };
        return bridge.store(new BacklogRecord(rule.kafkaTopic(), key, message), release);
    }
}
