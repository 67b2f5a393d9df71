package io.sluice.broker.topic;

/**
 * A validated topic filter of a SUBSCRIBE, possibly a shared subscription
 * {@code $share/<group>/<filter>} (MQTT 5 §4.8.2). {@link #filter()} is what is matched against
 * topic names; {@link #raw()} is what the client wrote and what UNSUBSCRIBE must repeat.
 */
public final class TopicFilter {
    private static final String SHARE_PREFIX = "$share/";

    private final String raw;
    private final String filter;
    private final String shareGroup;
    private final String[] levels;

    private TopicFilter(String raw, String filter, String shareGroup) {
        this.raw = raw;
        this.filter = filter;
        this.shareGroup = shareGroup;
        this.levels = TopicName.levels(filter);
    }

    /** Parses and validates {@code raw}; {@code maxLevels} of 0 means unlimited. */
    public static TopicFilter parse(String raw, int maxLevels) throws InvalidTopicException {
        if (raw == null) {
            // a stored subscription whose filter string reads back as null (a damaged state record)
            throw new InvalidTopicException("(null)", "a topic filter is required");
        }
        if (!raw.startsWith(SHARE_PREFIX)) {
            validateFilter(raw, raw, maxLevels);
            return new TopicFilter(raw, raw, null);
        }
        int slash = raw.indexOf('/', SHARE_PREFIX.length());
        if (slash < 0) {
            throw new InvalidTopicException(raw, "a shared subscription needs $share/<group>/<filter>");
        }
        String group = raw.substring(SHARE_PREFIX.length(), slash);
        if (group.isEmpty() || group.indexOf('+') >= 0 || group.indexOf('#') >= 0) {
            throw new InvalidTopicException(raw, "a share name must be non-empty and free of wildcards");
        }
        String filter = raw.substring(slash + 1);
        validateFilter(raw, filter, maxLevels);
        return new TopicFilter(raw, filter, group);
    }

    private static void validateFilter(String raw, String filter, int maxLevels) throws InvalidTopicException {
        if (filter.isEmpty()) {
            throw new InvalidTopicException(raw, "a topic filter must not be empty");
        }
        int levelStart = 0;
        int levels = 1;
        for (int i = 0; i < filter.length(); i++) {
            char c = filter.charAt(i);
            if (c == '/') {
                levels++;
                levelStart = i + 1;
            } else if (c == '+' || c == '#') {
                boolean alone = i == levelStart && (i + 1 == filter.length() || filter.charAt(i + 1) == '/');
                if (!alone) {
                    throw new InvalidTopicException(raw, "'" + c + "' must occupy a whole level");
                }
                if (c == '#' && i + 1 != filter.length()) {
                    throw new InvalidTopicException(raw, "'#' must be the last level");
                }
            }
        }
        if (maxLevels > 0 && levels > maxLevels) {
            throw new InvalidTopicException(raw, levels + " levels exceed the maximum of " + maxLevels);
        }
    }

    /** The filter as the client wrote it, including any {@code $share/<group>/} prefix. */
    public String raw() {
        return raw;
    }

    /** The part matched against topic names. */
    public String filter() {
        return filter;
    }

    /** The share name, or {@code null} for an ordinary subscription. */
    public String shareGroup() {
        return shareGroup;
    }

    public boolean isShared() {
        return shareGroup != null;
    }

    /** The levels of {@link #filter()}; callers must not modify the array. */
    public String[] levels() {
        return levels;
    }

    /** Whether {@code topic} matches this filter, with the '$' rule applied. */
    public boolean matches(String topic) {
        String[] topicLevels = TopicName.levels(topic);
        if (TopicName.isReserved(topic) && (levels[0].equals("+") || levels[0].equals("#"))) {
            return false;
        }
        for (int i = 0; i < levels.length; i++) {
            if (levels[i].equals("#")) {
                return true;
            }
            if (i >= topicLevels.length) {
                return false;
            }
            if (!levels[i].equals("+") && !levels[i].equals(topicLevels[i])) {
                return false;
            }
        }
        return levels.length == topicLevels.length;
    }

    @Override
    public String toString() {
        return raw;
    }
}
