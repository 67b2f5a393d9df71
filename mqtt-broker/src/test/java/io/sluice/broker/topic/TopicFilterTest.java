package io.sluice.broker.topic;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TopicFilterTest {

    @ParameterizedTest
    @ValueSource(strings = {"#", "+", "a/#", "a/+/c", "+/+", "/", "a//b", "/a/#", "$SYS/#", "a/b/c"})
    void acceptsValidFilters(String filter) throws InvalidTopicException {
        assertEquals(filter, TopicFilter.parse(filter, 0).filter());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a#", "a/#/b", "a/b#", "a+", "a/+b/c", "#/a", "$share/g", "$share//a", "$share/g+/a",
        "$share/g/"})
    void rejectsInvalidFilters(String filter) {
        assertThrows(InvalidTopicException.class, () -> TopicFilter.parse(filter, 0));
    }

    @Test
    void parsesSharedSubscriptions() throws InvalidTopicException {
        TopicFilter shared = TopicFilter.parse("$share/workers/jobs/+", 0);
        assertTrue(shared.isShared());
        assertEquals("workers", shared.shareGroup());
        assertEquals("jobs/+", shared.filter());
        assertEquals("$share/workers/jobs/+", shared.raw());
    }

    @Test
    void limitsTheNumberOfLevels() throws InvalidTopicException {
        TopicFilter.parse("a/b/c", 3);
        assertThrows(InvalidTopicException.class, () -> TopicFilter.parse("a/b/c/d", 3));
        assertThrows(InvalidTopicException.class, () -> TopicName.validate("a/b/c/d", 3));
    }

    @Test
    void topicNamesMayNotContainWildcardsOrBeEmpty() {
        assertThrows(InvalidTopicException.class, () -> TopicName.validate("a/+", 0));
        assertThrows(InvalidTopicException.class, () -> TopicName.validate("a/#", 0));
        assertThrows(InvalidTopicException.class, () -> TopicName.validate("", 0));
    }

    @Test
    void matchesFollowTheSpecificationExamples() throws InvalidTopicException {
        assertTrue(TopicFilter.parse("sport/tennis/player1/#", 0).matches("sport/tennis/player1"));
        assertTrue(TopicFilter.parse("sport/tennis/player1/#", 0).matches("sport/tennis/player1/ranking"));
        assertTrue(TopicFilter.parse("sport/#", 0).matches("sport"));
        assertTrue(TopicFilter.parse("sport/tennis/+", 0).matches("sport/tennis/player1"));
        assertFalse(TopicFilter.parse("sport/tennis/+", 0).matches("sport/tennis/player1/ranking"));
        assertFalse(TopicFilter.parse("sport/+", 0).matches("sport"));
        assertTrue(TopicFilter.parse("sport/+", 0).matches("sport/"));
        assertTrue(TopicFilter.parse("+/+", 0).matches("/finance"));
        assertTrue(TopicFilter.parse("/+", 0).matches("/finance"));
        assertFalse(TopicFilter.parse("+", 0).matches("/finance"));
    }

    @Test
    void wildcardsInTheFirstLevelDoNotMatchDollarTopics() throws InvalidTopicException {
        assertFalse(TopicFilter.parse("#", 0).matches("$SYS/broker/uptime"));
        assertFalse(TopicFilter.parse("+/broker/uptime", 0).matches("$SYS/broker/uptime"));
        assertTrue(TopicFilter.parse("$SYS/#", 0).matches("$SYS/broker/uptime"));
        assertTrue(TopicFilter.parse("$SYS/+/uptime", 0).matches("$SYS/broker/uptime"));
    }
}
