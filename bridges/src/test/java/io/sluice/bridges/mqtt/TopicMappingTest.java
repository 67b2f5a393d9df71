package io.sluice.bridges.mqtt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** NanoMQ's topic renaming, with the examples of its documentation. */
class TopicMappingTest {

    @Test
    void anEmptyTargetKeepsTheTopicAndPrefixAndSuffixAreAddedAsText() {
        assertEquals("a/b", new TopicMapping("a/#", "", "", "").map("a/b"));
        assertEquals("emqx/topic2", new TopicMapping("topic2", "", "emqx/", "").map("topic2"));
        assertEquals("edge1/a/b/now", new TopicMapping("a/#", "", "edge1/", "/now").map("a/b"));
    }

    @Test
    void aTargetWithoutWildcardsReplacesTheTopic() {
        assertEquals("fwd/topic1", new TopicMapping("topic1", "fwd/topic1", "", "").map("topic1"));
        assertEquals("fwd/topic1/emqx", new TopicMapping("topic1", "fwd/topic1", "", "/emqx").map("topic1"));
        assertEquals("all", new TopicMapping("a/+/c", "all", "", "").map("a/b/c"));
    }

    @Test
    void wildcardsInTheTargetAreAnchorsIntoTheFilter() {
        // NanoMQ's documented example: remote "+/nanomq/#" with local "#".
        assertEquals("hello/world", new TopicMapping("+/nanomq/#", "#", "", "").map("cmd/nanomq/hello/world"));
        assertEquals("nanomq/hello/world", new TopicMapping("+/nanomq/#", "nanomq/#", "", "").map("cmd/nanomq/hello/world"));
        // A target in the middle of the filter keeps as many levels as it has.
        assertEquals("b/c", new TopicMapping("a/+/c/#", "+/c", "", "").map("a/b/c/d/e"));
        assertEquals("local/x", new TopicMapping("cmd/+/#", "#", "local/", "").map("cmd/dev/x"));
    }

    @Test
    void impossibleMappingsAreRefusedWithTheReason() {
        IllegalArgumentException notPart = assertThrows(IllegalArgumentException.class,
                () -> new TopicMapping("cmd/#", "x/#", "", ""));
        assertTrue(notPart.getMessage().contains("must be part of the filter"), notPart.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new TopicMapping("a/#", "", "p/#", ""));
        assertThrows(IllegalArgumentException.class, () -> new TopicMapping("a/#", "", "", "+"));
    }

    @Test
    void filtersMatchAsMqttSays() {
        assertTrue(TopicFilter.matches("a/#", "a"));
        assertTrue(TopicFilter.matches("a/#", "a/b/c"));
        assertTrue(TopicFilter.matches("a/+/c", "a/b/c"));
        assertTrue(TopicFilter.matches("+/+", "/x"));
        assertTrue(TopicFilter.matches("a/+", "a/"));
        assertFalse(TopicFilter.matches("a/+", "a/b/c"));
        assertFalse(TopicFilter.matches("#", "$SYS/broker/uptime"));
        assertTrue(TopicFilter.matches("$SYS/#", "$SYS/broker/uptime"));
        assertFalse(TopicFilter.matches("a/b", "a/bc"));
        assertThrows(IllegalArgumentException.class, () -> TopicFilter.validate("a/#/b"));
        assertThrows(IllegalArgumentException.class, () -> TopicFilter.validate("a/b+"));
        assertThrows(IllegalArgumentException.class, () -> TopicFilter.validate(""));
    }
}
