package io.sluice.broker.routing;

import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;
import io.sluice.broker.topic.TopicName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TopicTreeTest {
    private static final String[] WORDS = {"a", "b", "c", "$SYS", "", "x"};

    private static Set<String> match(TopicTree<String> tree, String topic) {
        Set<String> found = new HashSet<>();
        tree.match(TopicName.levels(topic), TopicName.isReserved(topic), found::add);
        return found;
    }

    @Test
    void findsExactlyTheFiltersThatMatchAsTheSpecificationDefinesThem() throws InvalidTopicException {
        Random random = new Random(42);
        TopicTree<String> tree = new TopicTree<>(v -> v);
        List<TopicFilter> filters = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            TopicFilter filter = TopicFilter.parse(randomFilter(random), 0);
            filters.add(filter);
            tree.put(filter.levels(), filter.raw());
        }
        assertMatchesLikeTheFilters(tree, filters, random);
    }

    @Test
    void removedFiltersStopMatchingAndAddedOnesStart() throws InvalidTopicException {
        Random random = new Random(7);
        TopicTree<String> tree = new TopicTree<>(v -> v);
        Map<String, TopicFilter> filters = new LinkedHashMap<>();
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 200; i++) {
                TopicFilter filter = TopicFilter.parse(randomFilter(random), 0);
                filters.put(filter.raw(), filter);
                tree.put(filter.levels(), filter.raw());
            }
            assertMatchesLikeTheFilters(tree, List.copyOf(filters.values()), random);
            for (TopicFilter filter : List.copyOf(filters.values())) {
                if (random.nextBoolean()) {
                    assertEquals(filter.raw(), tree.remove(filter.levels(), filter.raw()));
                    filters.remove(filter.raw());
                }
            }
            assertMatchesLikeTheFilters(tree, List.copyOf(filters.values()), random);
        }
    }

    private static void assertMatchesLikeTheFilters(TopicTree<String> tree, List<TopicFilter> filters, Random random) {
        for (int i = 0; i < 2000; i++) {
            String topic = randomTopic(random);
            Set<String> expected = new HashSet<>();
            for (TopicFilter filter : filters) {
                if (filter.matches(topic)) {
                    expected.add(filter.raw());
                }
            }
            assertEquals(expected, match(tree, topic), "topic " + topic);
        }
    }

    private static String randomFilter(Random random) {
        int levels = 1 + random.nextInt(4);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < levels; i++) {
            if (i > 0) {
                sb.append('/');
            }
            int pick = random.nextInt(WORDS.length + 2);
            if (pick == WORDS.length) {
                sb.append('+');
            } else if (pick == WORDS.length + 1) {
                sb.append('#');
                break;
            } else {
                sb.append(WORDS[pick]);
            }
        }
        return sb.isEmpty() ? "x" : sb.toString();
    }

    private static String randomTopic(Random random) {
        int levels = 1 + random.nextInt(4);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < levels; i++) {
            if (i > 0) {
                sb.append('/');
            }
            sb.append(WORDS[random.nextInt(WORDS.length)]);
        }
        return sb.isEmpty() ? "x" : sb.toString();
    }

    @Test
    void putReplacesTheValueWithTheSameKeyAndRemovePrunesEmptyBranches() {
        TopicTree<String> tree = new TopicTree<>(v -> v.substring(0, 1));
        String[] levels = TopicName.levels("a/b/c");
        assertNull(tree.put(levels, "k1"));
        assertEquals("k1", tree.put(levels, "k2"));
        assertEquals(Set.of("k2"), match(tree, "a/b/c"));
        assertEquals("k2", tree.remove(levels, "k"));
        assertTrue(tree.isEmpty(), "empty branches are pruned");
        assertNull(tree.remove(levels, "k"));
    }

    @Test
    void matchCostDoesNotDependOnUnrelatedFilters() {
        TopicTree<String> tree = new TopicTree<>(v -> v);
        for (int i = 0; i < 100_000; i++) {
            tree.put(TopicName.levels("devices/" + i + "/telemetry"), "d" + i);
        }
        tree.put(TopicName.levels("devices/+/alarm"), "alarms");
        int[] visited = new int[1];
        tree.match(TopicName.levels("devices/7/alarm"), false, v -> visited[0]++);
        assertEquals(1, visited[0]);
        assertEquals(Set.of("d7"), match(tree, "devices/7/telemetry"));
    }
}
