package io.sluice.storage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Maps a topic onto its shards {@code <topic>_<n>}, n = 0 .. partitions-1, and routes writes:
 * a record with a key goes to the partition of its key's murmur2 hash (Kafka's default
 * partitioner, so every version of a key lands in one shard and compaction sees them all); a
 * record without a key goes round-robin. Thread-safe; the partition count is read from the
 * adapter's shards once per topic and cached.
 */
public final class TopicRouter {
    private final StorageAdapter adapter;
    private final Map<String, Topic> topics = new ConcurrentHashMap<>();

    private record Topic(int partitions, AtomicLong sequence) {
    }

    public TopicRouter(StorageAdapter adapter) {
        this.adapter = adapter;
    }

    public static String shardName(String topic, int partition) {
        return topic + "_" + partition;
    }

    /** Creates {@code partitions} shards for a topic; fails before creating any if one exists. */
    public List<String> createTopic(String topic, int partitions, ShardSettings settings) {
        if (partitions < 1) {
            throw new IllegalArgumentException("topic '" + topic + "': partitions must be at least 1, got " + partitions);
        }
        List<String> names = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            String shard = shardName(topic, p);
            if (adapter.shardExists(shard)) {
                throw new ShardExistsException(shard);
            }
            names.add(shard);
        }
        for (String shard : names) {
            adapter.createShard(shard, settings);
        }
        topics.remove(topic);
        return names;
    }

    /** Deletes every shard of a topic. */
    public void deleteTopic(String topic) {
        int partitions = partitions(topic);
        topics.remove(topic);
        for (int p = 0; p < partitions; p++) {
            adapter.deleteShard(shardName(topic, p));
        }
    }

    /** The topic's partition count: shards {@code <topic>_0} up to the first missing number. */
    public int partitions(String topic) {
        return topic(topic).partitions();
    }

    private Topic topic(String topic) {
        return topics.computeIfAbsent(topic, t -> {
            int n = 0;
            while (adapter.shardExists(shardName(t, n))) {
                n++;
            }
            if (n == 0) {
                throw new UnknownShardException(shardName(t, 0));
            }
            return new Topic(n, new AtomicLong());
        });
    }

    /** The shard a record goes to. */
    public String shardFor(String topic, Record record) {
        Topic t = topic(topic);
        int partition = record.key() == null
                ? (int) Math.floorMod(t.sequence().getAndIncrement(), (long) t.partitions())
                : partitionForKey(record.key(), t.partitions());
        return shardName(topic, partition);
    }

    /**
     * The partition of {@code key} among {@code partitions}, as Kafka's default partitioner picks it
     * (positive murmur2 modulo the count): a Kafka producer sending the same key lands on the same one.
     */
    public static int partitionForKey(byte[] key, int partitions) {
        return (murmur2(key) & 0x7fffffff) % partitions;
    }

    public ShardOffset write(String topic, Record record) {
        String shard = shardFor(topic, record);
        return new ShardOffset(shard, adapter.write(shard, record));
    }

    /** Writes records, one batch per shard; results are in the order of {@code records}. */
    public List<ShardOffset> batchWrite(String topic, List<Record> records) {
        Map<String, List<Integer>> byShard = new LinkedHashMap<>();
        for (int i = 0; i < records.size(); i++) {
            byShard.computeIfAbsent(shardFor(topic, records.get(i)), s -> new ArrayList<>()).add(i);
        }
        ShardOffset[] results = new ShardOffset[records.size()];
        for (Map.Entry<String, List<Integer>> entry : byShard.entrySet()) {
            List<Record> batch = new ArrayList<>();
            for (int i : entry.getValue()) {
                batch.add(records.get(i));
            }
            long[] offsets = adapter.batchWrite(entry.getKey(), batch);
            for (int j = 0; j < offsets.length; j++) {
                results[entry.getValue().get(j)] = new ShardOffset(entry.getKey(), offsets[j]);
            }
        }
        return List.of(results);
    }

    /** Kafka's murmur2 (seed 0x9747b28c), byte for byte. */
    @SuppressWarnings("fallthrough")
    static int murmur2(byte[] data) {
        int length = data.length;
        int m = 0x5bd1e995;
        int r = 24;
        int h = 0x9747b28c ^ length;
        int length4 = length / 4;
        for (int i = 0; i < length4; i++) {
            int i4 = i * 4;
            int k = (data[i4] & 0xff) + ((data[i4 + 1] & 0xff) << 8) + ((data[i4 + 2] & 0xff) << 16) + ((data[i4 + 3] & 0xff) << 24);
            k *= m;
            k ^= k >>> r;
            k *= m;
            h *= m;
            h ^= k;
        }
        switch (length % 4) {
            case 3:
                h ^= (data[(length & ~3) + 2] & 0xff) << 16;
                // fall through: each case adds one more trailing byte
            case 2:
                h ^= (data[(length & ~3) + 1] & 0xff) << 8;
                // fall through
            case 1:
                h ^= data[length & ~3] & 0xff;
                h *= m;
                break;
            default:
                break;
        }
        h ^= h >>> 13;
        h *= m;
        h ^= h >>> 15;
        return h;
    }
}
