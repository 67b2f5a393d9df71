package io.sluice.broker.security;

import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;
import io.sluice.broker.topic.TopicName;
import io.sluice.net.auth.ClientIdentity;

/**
 * One topic of an ACL rule: an MQTT topic filter ({@code +} and {@code #} wildcards) in which
 * {@code %u} / {@code ${username}} and {@code %c} / {@code ${clientid}} stand for the client's user
 * name and client id, or, written {@code "eq <filter>"}, a filter that must be matched literally
 * (so that {@code "eq #"} denies subscribing to {@code #} itself without denying every filter).
 *
 * <p>How a rule's pattern applies:
 * <ul>
 *   <li>a PUBLISH topic name: MQTT matching, with the rule that a pattern starting with a wildcard
 *       does not match {@code $} topics;</li>
 *   <li>an allow rule and a SUBSCRIBE filter: the pattern must <em>cover</em> the filter (every
 *       topic the filter can match, the pattern matches too: {@code a/#} covers {@code a/+/b});</li>
 *   <li>a deny rule and a SUBSCRIBE filter: the pattern need only <em>overlap</em> the filter
 *       (some topic matches both: deny {@code secret/#} refuses {@code #}), so that a wide
 *       subscription never slips past a narrower deny.</li>
 * </ul>
 * A placeholder whose value is missing (no user name) or contains {@code /}, {@code +} or
 * {@code #} never lets an allow rule match and makes a deny rule match at that level, so a
 * client cannot widen its rights by choosing its name.
 *
 * <p>Immutable and thread-safe; publish checks allocate nothing.
 */
public final class TopicPattern {
    /** Stands for a placeholder in a level; U+0000 cannot occur in an MQTT topic. */
    private static final char MARK = '\0';

    private final String source;
    private final boolean exact;
    private final String whole;
    private final String[] levels;

    private TopicPattern(String source, boolean exact, String whole) {
        this.source = source;
        this.exact = exact;
        this.whole = whole;
        this.levels = TopicName.levels(whole);
    }

    /** Parses one entry of a rule's {@code topics}; throws IllegalArgumentException if it is not a valid filter. */
    public static TopicPattern parse(String text) {
        boolean exact = text.startsWith("eq ");
        String body = exact ? text.substring(3).strip() : text;
        String marked = body.replace("${username}", MARK + "u").replace("${clientid}", MARK + "c")
                .replace("%u", MARK + "u").replace("%c", MARK + "c");
        try {
            TopicFilter.parse(marked.replace(MARK, 'x'), 0);
        } catch (InvalidTopicException e) {
            throw new IllegalArgumentException("topic '" + text + "' is not a valid topic filter: " + e.getMessage(), e);
        }
        return new TopicPattern(text, exact, marked);
    }

    /** Whether a PUBLISH to {@code topic} by {@code client} falls under this pattern. */
    public boolean matchesTopic(String topic, ClientIdentity client, boolean allowRule) {
        if (exact) {
            return same(whole, topic, 0, topic.length(), client, allowRule);
        }
        if (TopicName.isReserved(topic) && isWildcard(levels[0])) {
            return false;
        }
        int start = 0;
        for (String level : levels) {
            if (level.equals("#")) {
                return true;
            }
            if (start > topic.length()) {
                return false;
            }
            int slash = topic.indexOf('/', start);
            int end = slash < 0 ? topic.length() : slash;
            if (!level.equals("+") && !same(level, topic, start, end, client, allowRule)) {
                return false;
            }
            start = end + 1;
        }
        return start == topic.length() + 1;
    }

    /** For allow rules: whether every topic {@code filter} can match is matched by this pattern. */
    public boolean coversFilter(String filter, String[] filterLevels, ClientIdentity client) {
        if (exact) {
            return same(whole, filter, 0, filter.length(), client, true);
        }
        if (TopicName.isReserved(filter) && isWildcard(levels[0])) {
            return false;
        }
        for (int i = 0; ; i++) {
            if (i == levels.length) {
                return i == filterLevels.length;
            }
            String p = levels[i];
            if (p.equals("#")) {
                return true;
            }
            if (i == filterLevels.length) {
                return false;
            }
            String f = filterLevels[i];
            if (f.equals("#") || (f.equals("+") && !p.equals("+"))) {
                return false;
            }
            if (!p.equals("+") && !same(p, f, 0, f.length(), client, true)) {
                return false;
            }
        }
    }

    /** For deny rules: whether some topic matches both this pattern and {@code filter}. */
    public boolean overlapsFilter(String filter, String[] filterLevels, ClientIdentity client) {
        if (exact) {
            return same(whole, filter, 0, filter.length(), client, false);
        }
        for (int i = 0; ; i++) {
            boolean patternEnds = i == levels.length;
            boolean filterEnds = i == filterLevels.length;
            String p = patternEnds ? null : levels[i];
            String f = filterEnds ? null : filterLevels[i];
            if (i == 0 && reservedMismatch(p, f)) {
                return false;
            }
            if ("#".equals(p) || "#".equals(f)) {
                return true;
            }
            if (patternEnds || filterEnds) {
                return patternEnds && filterEnds;
            }
            if (!p.equals("+") && !f.equals("+") && !same(p, f, 0, f.length(), client, false)) {
                return false;
            }
        }
    }

    /** A wildcard first level never matches a '$' topic, so it cannot overlap a '$' literal. */
    private static boolean reservedMismatch(String p, String f) {
        return p != null && f != null && (isWildcard(p) && f.startsWith("$") || isWildcard(f) && p.startsWith("$"));
    }

    private static boolean isWildcard(String level) {
        return level.equals("+") || level.equals("#");
    }

    /**
     * Whether {@code s[start, end)} equals {@code template} with its placeholders filled in. An
     * unusable placeholder value fails an allow rule and matches a deny rule (see the class comment).
     */
    private static boolean same(String template, String s, int start, int end, ClientIdentity client,
                                boolean allowRule) {
        if (template.indexOf(MARK) < 0) {
            return end - start == template.length() && s.regionMatches(start, template, 0, template.length());
        }
        int pos = start;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c != MARK) {
                if (pos >= end || s.charAt(pos) != c) {
                    return false;
                }
                pos++;
                continue;
            }
            String value = template.charAt(++i) == 'u' ? client.username() : client.clientId();
            if (!usable(value)) {
                return !allowRule;
            }
            if (pos + value.length() > end || !s.regionMatches(pos, value, 0, value.length())) {
                return false;
            }
            pos += value.length();
        }
        return pos == end;
    }

    private static boolean usable(String value) {
        return value != null && !value.isEmpty() && value.indexOf('/') < 0 && value.indexOf('+') < 0
                && value.indexOf('#') < 0;
    }

    @Override
    public String toString() {
        return source;
    }
}
