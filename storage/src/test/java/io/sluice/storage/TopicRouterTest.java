package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopicRouterTest {
    @TempDir
    Path dir;

    @Test
    void unkeyedWritesGoRoundRobinAcrossPartitions() {
        try (StorageAdapter adapter = StorageAdapter.open(dir)) {
            TopicRouter router = new TopicRouter(adapter);
            assertEquals(List.of("metrics_0", "metrics_1", "metrics_2"),
                    router.createTopic("metrics", 3, ShardSettings.memory(LogSettings.defaults())));
            Map<String, Integer> counts = new HashMap<>();
            for (int i = 0; i < 30; i++) {
                ShardOffset at = router.write("metrics", Record.ofValue(new byte[1], i));
                counts.merge(at.shard(), 1, Integer::sum);
            }
            assertEquals(Map.of("metrics_0", 10, "metrics_1", 10, "metrics_2", 10), counts);
        }
    }

    @Test
    void keyedWritesFollowTheKeyHashSoEveryVersionLandsInOneShard() {
        try (StorageAdapter adapter = StorageAdapter.open(dir)) {
            TopicRouter router = new TopicRouter(adapter);
            router.createTopic("state", 4, ShardSettings.memory(LogSettings.defaults()));
            for (int k = 0; k < 20; k++) {
                byte[] key = ("client-" + k).getBytes(StandardCharsets.UTF_8);
                String expected = "state_" + ((TopicRouter.murmur2(key) & 0x7fffffff) % 4);
                for (int v = 0; v < 3; v++) {
                    assertEquals(expected, router.write("state", Record.of(key, new byte[] {(byte) v}, v)).shard());
                }
            }
            List<ShardOffset> batch = router.batchWrite("state",
                    List.of(Record.of("a".getBytes(), null, 1), Record.ofValue(new byte[1], 2)));
            assertEquals(2, batch.size());
            assertEquals(router.shardFor("state", Record.of("a".getBytes(), null, 1)), batch.get(0).shard());
        }
    }

    @Test
    void murmur2MatchesKafkasPartitioner() {
        assertEquals(-973932308, TopicRouter.murmur2("21".getBytes(StandardCharsets.UTF_8)));
        assertEquals(-790332482, TopicRouter.murmur2("foobar".getBytes(StandardCharsets.UTF_8)));
        assertEquals(-985981536, TopicRouter.murmur2("a-little-bit-long-string".getBytes(StandardCharsets.UTF_8)));
        assertEquals(-1486304829, TopicRouter.murmur2("a-little-bit-longer-string".getBytes(StandardCharsets.UTF_8)));
        assertEquals(479470107, TopicRouter.murmur2("abc".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void anUnknownTopicOrAnExistingOneIsAnError() {
        try (StorageAdapter adapter = StorageAdapter.open(dir)) {
            TopicRouter router = new TopicRouter(adapter);
            assertThrows(UnknownShardException.class, () -> router.write("ghost", Record.ofValue(new byte[1], 1)));
            router.createTopic("t", 2, ShardSettings.memory(LogSettings.defaults()));
            assertThrows(ShardExistsException.class, () -> router.createTopic("t", 3, ShardSettings.memory(LogSettings.defaults())));
            assertEquals(2, router.partitions("t"));
            router.deleteTopic("t");
            assertEquals(List.of(), List.copyOf(adapter.shards()));
        }
    }
}
