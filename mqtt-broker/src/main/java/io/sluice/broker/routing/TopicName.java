package io.sluice.broker.routing;

/**
 * Rules for the topic name of a PUBLISH (MQTT 5 §4.7.3): not empty, no wildcards, at most a
 * configured number of levels. UTF-8 well-formedness and U+0000 are already enforced by the
 * decoder, which reads every string strictly.
 */
public final class TopicName {
    private TopicName() {
    }

    /** Throws if {@code topic} may not be published to; {@code maxLevels} of 0 means unlimited. */
    public static void validate(String topic, int maxLevels) throws InvalidTopicException {
        if (topic.isEmpty()) {
            throw new InvalidTopicException(topic, "a topic name must not be empty");
        }
        int levels = 1;
        for (int i = 0; i < topic.length(); i++) {
            char c = topic.charAt(i);
            if (c == '+' || c == '#') {
                throw new InvalidTopicException(topic, "a topic name must not contain wildcards");
            }
            if (c == '/') {
                levels++;
            }
        }
        if (maxLevels > 0 && levels > maxLevels) {
            throw new InvalidTopicException(topic, levels + " levels exceed the maximum of " + maxLevels);
        }
    }

    /** Splits a topic name or filter into its levels, keeping empty levels ("a//b", "/a"). */
    public static String[] levels(String topic) {
        return topic.split("/", -1);
    }

    /** Topics beginning with '$' are reserved: filters starting with a wildcard do not match them. */
    public static boolean isReserved(String topic) {
        return !topic.isEmpty() && topic.charAt(0) == '$';
    }
}
