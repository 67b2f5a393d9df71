package io.sluice.bridges.mqtt;

import io.sluice.settings.InvalidSettingException;

/**
 * How a rule renames a topic as it crosses the bridge, as NanoMQ does it (its {@code
 * preprocess_topics} and {@code generate_repub_topic}). A rule has the filter messages match on
 * ({@code local_topic} of a forward, {@code remote_topic} of a subscription) and a target (the
 * other one):
 * <ul>
 *  <li>an empty target keeps the topic as it is;</li>
 *  <li>a target without wildcards replaces the whole topic;</li>
 *  <li>a target with wildcards must be part of the filter, and the wildcards are anchors: the levels
 *      of the topic before the target's place in the filter are cut, and so are the levels after the
 *      target unless it ends the filter. Filter {@code +/nanomq/#} with target {@code #} turns
 *      {@code cmd/nanomq/hello/world} into {@code hello/world};</li>
 *  <li>then {@code prefix} is put before the topic and {@code suffix} after it, as plain text.</li>
 * </ul>
 * Immutable; thread-safe.
 */
public final class TopicMapping {
    /** Keep every level after the skipped ones. */
    private static final int ALL_LEVELS = -1;

    private final String target;
    private final boolean replaces;
    private final int skipLevels;
    private final int keepLevels;
    private final String prefix;
    private final String suffix;

    /**
     * @param filter the rule's filter; {@code target}, {@code prefix}, {@code suffix} as configured ("" for none)
     * @throws IllegalArgumentException naming the problem, when the target cannot be mapped from the filter
     *                                  or prefix/suffix hold a wildcard
     */
    public TopicMapping(String filter, String target, String prefix, String suffix) {
        this.target = target;
        this.prefix = prefix;
        this.suffix = suffix;
        if (TopicFilter.hasWildcard(prefix) || TopicFilter.hasWildcard(suffix)) {
            throw new IllegalArgumentException("prefix and suffix must not contain + or #, got prefix '" + prefix
                    + "' and suffix '" + suffix + "'");
        }
        if (target.isEmpty() || !TopicFilter.hasWildcard(target)) {
            this.replaces = !target.isEmpty();
            this.skipLevels = 0;
            this.keepLevels = ALL_LEVELS;
            return;
        }
        int hash = target.indexOf('#');
        if (hash >= 0 && hash != target.length() - 1) {
            throw new IllegalArgumentException("'" + target + "': # must be the last character");
        }
        int at = filter.indexOf(target);
        if (at < 0) {
            throw new IllegalArgumentException("'" + target + "' has wildcards, so it must be part of the filter '"
                    + filter + "' (its wildcards mark which levels to keep)");
        }
        this.replaces = false;
        this.skipLevels = slashes(filter, 0, at);
        this.keepLevels = at + target.length() == filter.length() ? ALL_LEVELS : 1 + slashes(target, 0, target.length());
    }

    /**
     * As the constructor, reporting a problem as a setting: the target as {@code targetKey}, a
     * wildcard in {@code prefix} or {@code suffix} as that key.
     */
    static TopicMapping of(String filter, String target, String targetKey, String prefix, String suffix) {
        if (TopicFilter.hasWildcard(prefix)) {
            throw new InvalidSettingException("prefix", "must not contain + or #, got '" + prefix + "'");
        }
        if (TopicFilter.hasWildcard(suffix)) {
            throw new InvalidSettingException("suffix", "must not contain + or #, got '" + suffix + "'");
        }
        try {
            return new TopicMapping(filter, target, prefix, suffix);
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException(targetKey, e.getMessage(), e);
        }
    }

    private static int slashes(String text, int from, int to) {
        int count = 0;
        for (int i = from; i < to; i++) {
            if (text.charAt(i) == '/') {
                count++;
            }
        }
        return count;
    }

    /** The topic {@code topic} becomes on the other side. */
    public String map(String topic) {
        String mapped = replaces ? target : cut(topic);
        if (prefix.isEmpty() && suffix.isEmpty()) {
            return mapped;
        }
        return prefix + mapped + suffix;
    }

    private String cut(String topic) {
        int start = 0;
        for (int i = 0; i < skipLevels && start >= 0; i++) {
            int slash = topic.indexOf('/', start);
            start = slash < 0 ? -1 : slash + 1;
        }
        if (start < 0) {
            return "";
        }
        if (keepLevels == ALL_LEVELS) {
            return topic.substring(start);
        }
        int end = start;
        for (int i = 0; i < keepLevels; i++) {
            int slash = topic.indexOf('/', end);
            if (slash < 0) {
                return topic.substring(start);
            }
            end = slash + 1;
        }
        return topic.substring(start, end - 1);
    }
}
