package io.sluice.bridges.mqtt;

import io.sluice.settings.InvalidSettingException;

/**
 * MQTT topic filters as a bridge needs them: checking the filters of its rules at start-up and
 * finding the subscription rule a message from the remote arrived through (MQTT 5 §4.7).
 */
public final class TopicFilter {
    private TopicFilter() {
    }

    /** Throws {@link IllegalArgumentException} saying what is wrong unless {@code filter} is a valid filter. */
    public static void validate(String filter) {
        if (filter == null || filter.isEmpty()) {
            throw new IllegalArgumentException("must be a topic filter, got an empty string");
        }
        String[] levels = filter.split("/", -1);
        for (int i = 0; i < levels.length; i++) {
            String level = levels[i];
            if (level.contains("#") && (!level.equals("#") || i != levels.length - 1)) {
                throw new IllegalArgumentException("'" + filter + "': # must be a whole level and the last one");
            }
            if (level.contains("+") && !level.equals("+")) {
                throw new IllegalArgumentException("'" + filter + "': + must be a whole level");
            }
        }
        if (filter.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("'" + filter + "': contains NUL");
        }
    }

    /** As {@link #validate}, reporting the problem as the setting {@code key}. */
    public static void check(String key, String filter) {
        try {
            validate(filter);
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException(key, "not a valid MQTT topic filter: " + e.getMessage(), e);
        }
    }

    /** Whether the topic name {@code topic} matches {@code filter}; {@code $} topics only match filters that start with {@code $}. */
    public static boolean matches(String filter, String topic) {
        if (topic.startsWith("$") && !filter.startsWith("$")) {
            return false;
        }
        int f = 0;
        int t = 0;
        while (f < filter.length()) {
            char c = filter.charAt(f);
            if (c == '#') {
                return true;
            }
            if (c == '+') {
                int slash = topic.indexOf('/', t);
                t = slash < 0 ? topic.length() : slash;
                f++;
                continue;
            }
            if (t >= topic.length()) {
                // "a/#" also matches "a": the filter's "/#" may stand for nothing
                return filter.startsWith("/#", f) && f + 2 == filter.length();
            }
            if (c != topic.charAt(t)) {
                return false;
            }
            f++;
            t++;
        }
        return t == topic.length();
    }

    /** Whether {@code text} holds a wildcard character. */
    public static boolean hasWildcard(String text) {
        return text.indexOf('+') >= 0 || text.indexOf('#') >= 0;
    }
}
