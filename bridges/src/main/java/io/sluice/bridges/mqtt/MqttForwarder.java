package io.sluice.bridges.mqtt;

import io.sluice.bridges.Bridge;
import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.Forwarder;
import io.sluice.bridges.backlog.BacklogRecord;

/**
 * One {@code forwards} rule of an MQTT bridge: renames a local message's topic, sets its QoS and
 * RETAIN as the rule says, and hands it to the bridge. Loop safety on this side: a message the
 * bridge itself published locally (it came from the remote) is never sent back, the local
 * counterpart of MQTT 5 No Local; and {@code $SYS} topics are never forwarded, as in NanoMQ.
 * QoS 0 messages are stored only with {@code retry_qos_0}; otherwise they go straight to the
 * remote when it is connected and can take them, and are counted as dropped when it cannot.
 */
public final class MqttForwarder implements Forwarder {
    private final ForwardRule rule;
    private final TopicMapping mapping;
    private final Bridge bridge;
    private final String bridgeClientId;
    private final boolean retryQos0;

    /** @param bridgeClientId the client id the bridge publishes locally as */
    public MqttForwarder(ForwardRule rule, Bridge bridge, String bridgeClientId, boolean retryQos0) {
        this.rule = rule;
        this.mapping = rule.mapping();
        this.bridge = bridge;
        this.bridgeClientId = bridgeClientId;
        this.retryQos0 = retryQos0;
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
        if (message.topic().startsWith("$SYS") || bridgeClientId.equals(message.publisherId())) {
            return false;
        }
        String target = mapping.map(message.topic());
        if (!isTopicName(target)) {
            bridge.counters().increment(BridgeCounter.INVALID_TOPIC);
            return false;
        }
        int qos = rule.forwardedQos(message.qos());
        boolean retain = rule.forwardedRetain(message.retain());
        BridgeMessage forwarded = qos == message.qos() && retain == message.retain() ? message
                : new BridgeMessage(message.topic(), message.payload(), qos, retain, message.properties(),
                message.publisherId(), message.createdMillis());
        BacklogRecord record = new BacklogRecord(target, forwarded);
        if (qos == 0 && !retryQos0) {
            bridge.sendUnstored(record);
            return false;
        }
        return bridge.store(record, release);
    }

    /** A topic a remote can take: not empty, no wildcard, no NUL. */
    private static boolean isTopicName(String topic) {
        return !topic.isEmpty() && !TopicFilter.hasWildcard(topic) && topic.indexOf('\0') < 0;
    }
}
