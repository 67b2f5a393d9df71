package io.sluice.bridges.mqtt;

import java.util.Objects;

import io.sluice.settings.InvalidSettingException;

/**
 * One entry of a bridge's {@code forwards}: local messages matching {@code local_topic} go to the
 * remote, renamed by {@code remote_topic}, {@code prefix} and {@code suffix} (see {@link TopicMapping}),
 * with their QoS and RETAIN flag or the ones the rule sets. Every matching rule fires on its own,
 * so one message may be forwarded more than once, as in NanoMQ.
 *
 * @param localTopic  {@code local_topic}: the local topic filter
 * @param remoteTopic {@code remote_topic}: the target, "" to keep the topic
 * @param qos         {@code qos}: the QoS to forward with, or -1 for the message's own
 * @param retain      {@code retain}: 0 or 1 to set the RETAIN flag, -1 for the message's own
 * @param prefix      {@code prefix}, "" for none
 * @param suffix      {@code suffix}, "" for none
 */
public record ForwardRule(String localTopic, String remoteTopic, int qos, int retain, String prefix, String suffix) {
    /** @throws InvalidSettingException naming the key ({@code local_topic}, {@code qos}, ...) */
    public ForwardRule {
        Objects.requireNonNull(remoteTopic, "remote_topic");
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(suffix, "suffix");
        TopicFilter.check("local_topic", localTopic);
        if (qos < -1 || qos > 2) {
            throw new InvalidSettingException("qos", "must be 0, 1 or 2, got " + qos);
        }
        if (retain < -1 || retain > 1) {
            throw new InvalidSettingException("retain", "must be false/0 or true/1 (2 keeps the message's flag), got "
                    + retain);
        }
        TopicMapping.of(localTopic, remoteTopic, "remote_topic", prefix, suffix);
    }

    /** The renaming this rule applies. */
    public TopicMapping mapping() {
        return TopicMapping.of(localTopic, remoteTopic, "remote_topic", prefix, suffix);
    }

    /** The QoS a message published with {@code qos} is forwarded with. */
    public int forwardedQos(int messageQos) {
        return qos < 0 ? messageQos : qos;
    }

    /** The RETAIN flag a message published with {@code retained} is forwarded with. */
    public boolean forwardedRetain(boolean retained) {
        return retain < 0 ? retained : retain == 1;
    }
}
