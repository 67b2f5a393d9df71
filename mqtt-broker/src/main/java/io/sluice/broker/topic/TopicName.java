package io.sluice.broker.topic;

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

    /**
     * Splits a topic name or filter into its levels, keeping empty levels ("a//b", "/a"). Runs
     * for every PUBLISH, so it sizes the array exactly instead of growing a list as
     * {@link String#split} does.
     */
    public static String[] levels(String topic) {
        int count = 1;
        for (int i = topic.indexOf('/'); i >= 0; i = topic.indexOf('/', i + 1)) {
            count++;
        }
        String[] levels = new String[count];
        int start = 0;
        for (int level = 0; level < count - 1; level++) {
            int end = topic.indexOf('/', start);
            levels[level] = topic.substring(start, end);
            start = end + 1;
        }
        levels[count - 1] = topic.substring(start);
        return levels;
    }

    /** Topics beginning with '$' are reserved: filters starting with a wildcard do not match them. */
    public static boolean isReserved(String topic) {
        return !topic.isEmpty() && topic.charAt(0) == '$';
    }
}
