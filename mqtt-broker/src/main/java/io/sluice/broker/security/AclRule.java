package io.sluice.broker.security;

import io.sluice.net.auth.ClientIdentity;
import java.util.List;

/**
 * One rule of the ACL file: {@code permit} applies to {@code subject} doing {@code action} on any
 * of {@code topics}. See {@link AclFile} for the text form and {@link TopicPattern} for matching.
 *
 * @param allow   {@code permit = allow} (true) or {@code deny}
 * @param subject whom the rule applies to
 * @param action  what it controls
 * @param topics  the topics it covers; never empty ({@code ["#"]} when the file gives none)
 * @param line    where it is in the file, for logs
 */
public record AclRule(boolean allow, AclSubject subject, Action action, List<TopicPattern> topics, int line) {
    /** {@code action}: what a rule controls. */
    public enum Action {
        PUBLISH, SUBSCRIBE, PUBSUB;

        boolean coversPublish() {
            return this != SUBSCRIBE;
        }

        boolean coversSubscribe() {
            return this != PUBLISH;
        }
    }

    /** Whether this rule decides a PUBLISH of {@code client} to {@code topic}. */
    boolean appliesToPublish(ClientIdentity client, String topic) {
        if (!action.coversPublish() || !subject.matches(client)) {
            return false;
        }
        for (int i = 0; i < topics.size(); i++) {
            if (topics.get(i).matchesTopic(topic, client, allow)) {
                return true;
            }
        }
        return false;
    }

    /** Whether this rule decides a SUBSCRIBE of {@code client} to {@code filter}. */
    boolean appliesToSubscribe(ClientIdentity client, String filter, String[] filterLevels) {
        if (!action.coversSubscribe() || !subject.matches(client)) {
            return false;
        }
        for (TopicPattern pattern : topics) {
            boolean hit = allow ? pattern.coversFilter(filter, filterLevels, client)
                    : pattern.overlapsFilter(filter, filterLevels, client);
            if (hit) {
                return true;
            }
        }
        return false;
    }
}
