package io.sluice.broker.retain;

import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RetainedStoreTest {
    private static Message retained(String topic, String payload) {
        return new Message(topic, payload.getBytes(), 1, true, MessageProperties.NONE, "c", System.currentTimeMillis());
    }

    private static Set<String> topics(RetainedStore store, String filter) throws InvalidTopicException {
        Set<String> found = new TreeSet<>();
        store.match(TopicFilter.parse(filter, 0), System.currentTimeMillis(), m -> found.add(m.topic()));
        return found;
    }

    @Test
    void anEmptyPayloadDeletesTheRetainedMessage() {
        RetainedStore store = new RetainedStore();
        store.put(retained("a/b", "1"));
        assertEquals(1, store.size());
        store.put(retained("a/b", ""));
        assertEquals(0, store.size());
        assertNull(store.get("a/b"));
    }

    @Test
    void wildcardsFindExactlyTheMatchingTopics() throws InvalidTopicException {
        RetainedStore store = new RetainedStore();
        for (String topic : List.of("a", "a/b", "a/b/c", "a/x/c", "b/b", "$SYS/up", "/lead")) {
            store.put(retained(topic, "v"));
        }
        assertEquals(Set.of("a", "a/b", "a/b/c", "a/x/c"), topics(store, "a/#"));
        assertEquals(Set.of("a/b/c", "a/x/c"), topics(store, "a/+/c"));
        assertEquals(Set.of("a", "a/b", "a/b/c", "a/x/c", "b/b", "/lead"), topics(store, "#"));
        assertEquals(Set.of("a/b", "b/b"), topics(store, "+/b"));
        assertEquals(Set.of("$SYS/up"), topics(store, "$SYS/#"));
        assertEquals(Set.of("/lead"), topics(store, "+/lead"));
    }

    @Test
    void expiredMessagesAreNeitherDeliveredNorKept() throws InvalidTopicException {
        RetainedStore store = new RetainedStore();
        MessageProperties expiring = new MessageProperties(-1, 1, null, null, null, List.of());
        store.put(new Message("t", "v".getBytes(), 0, true, expiring, "c", System.currentTimeMillis() - 2_000));
        assertTrue(topics(store, "#").isEmpty());
        assertEquals(0, store.size());
    }

    @Test
    void aWildcardSubscribeAmongHundredThousandTopicsVisitsOnlyItsBranch() throws InvalidTopicException {
        RetainedStore store = new RetainedStore();
        for (int i = 0; i < 100_000; i++) {
            store.put(retained("fleet/" + (i % 1000) + "/sensor/" + (i / 1000), "x"));
        }
        assertEquals(100_000, store.size());
        assertEquals(100, topics(store, "fleet/7/sensor/+").size());
        assertEquals(1000, topics(store, "fleet/+/sensor/42").size());
    }
}
