package io.sluice.bridges.mqtt;

import java.util.Objects;

import io.sluice.settings.InvalidSettingException;

/**
 * One entry of a bridge's {@code subscription}: the bridge subscribes to {@code remote_topic} on the
 * remote and publishes what arrives locally, renamed by {@code local_topic}, {@code prefix} and
 * {@code suffix} (see {@link TopicMapping}). When rules overlap, the first matching one renames a
 * message, as in NanoMQ.
 *
 * @param remoteTopic       {@code remote_topic}: the filter subscribed to on the remote
 * @param localTopic        {@code local_topic}: the target, "" to keep the topic
 * @param qos               {@code qos}: the maximum QoS of the subscription
 * @param retain            {@code retain}: 0 or 1 to set the RETAIN flag of local publishes, -1 to keep it
 * @param retainAsPublished {@code retain_as_published} (MQTT 5): the remote keeps the RETAIN flag as published
 * @param retainHandling    {@code retain_handling} (MQTT 5): 0 send retained messages on subscribe,
 *                          1 only for a new subscription, 2 never
 * @param noLocal           {@code nolocal} (MQTT 5): the remote does not send back what the bridge
 *                          published there; true unless turned off, so two brokers bridged both ways
 *                          do not loop
 * @param prefix            {@code prefix}, "" for none
 * @param suffix            {@code suffix}, "" for none
 */
public record SubscriptionRule(String remoteTopic, String localTopic, int qos, int retain, boolean retainAsPublished,
                               int retainHandling, boolean noLocal, String prefix, String suffix) {
    /** @throws InvalidSettingException naming the key ({@code remote_topic}, {@code qos}, ...) */
    public SubscriptionRule {
        Objects.requireNonNull(localTopic, "local_topic");
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(suffix, "suffix");
        TopicFilter.check("remote_topic", remoteTopic);
        if (qos < 0 || qos > 2) {
            throw new InvalidSettingException("qos", "must be 0, 1 or 2, got " + qos);
        }
        if (retain < -1 || retain > 1) {
            throw new InvalidSettingException("retain", "must be false/0, true/1 or 2 (as received), got " + retain);
        }
        if (retainHandling < 0 || retainHandling > 2) {
            throw new InvalidSettingException("retain_handling", "must be 0, 1 or 2, got " + retainHandling);
        }
        TopicMapping.of(remoteTopic, localTopic, "local_topic", prefix, suffix);
    }

    /** The renaming this rule applies. */
    public TopicMapping mapping() {
        return TopicMapping.of(remoteTopic, localTopic, "local_topic", prefix, suffix);
    }

    /** The RETAIN flag of the local publish of a message that arrived with {@code retained}. */
    public boolean localRetain(boolean retained) {
        return retain < 0 ? retained : retain == 1;
    }
}
