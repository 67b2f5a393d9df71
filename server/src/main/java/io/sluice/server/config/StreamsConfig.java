package io.sluice.server.config;

import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;
import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.Engine;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogSettings;
import io.sluice.storage.StorageAdapterSettings;
import io.sluice.settings.InvalidSettingException;
import io.sluice.streams.PartitionKey;
import io.sluice.streams.StreamName;
import io.sluice.streams.StreamSettings;

import com.typesafe.config.ConfigUtil;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The streams ({@code streams.<name> { ... }}) and where they live ({@code streams.dir}):
 * <pre>
 * streams.dir = "data/streams"        # every stream's partitions, the group offsets and the streams' own state
 * streams.enable_cache = false        # true: group-offset commits acknowledged from a RocksDB cache
 * streams.rocksdb_block_cache_bytes = 64MB        # the rocksdb engine's memory, shared by all its partitions
 * streams.rocksdb_write_buffer_bytes = 32MB       # memtables of all partitions, inside the block cache
 * streams.rocksdb_shard_write_buffer_bytes = 4MB  # one partition's memtable
 * streams.&lt;name&gt; {
 *   topic = "sensors/#"                # required: the MQTT topic filter
 *   partitions = 4                     # 1 by default; may grow, never shrink
 *   partition_key = topic              # topic, clientid or round_robin
 *   engine = segment                   # segment, memory or rocksdb
 *   retention_ms = 7d                  # -1 keeps everything
 *   retention_bytes = -1               # per partition
 *   segment_bytes = 64MB
 *   cleanup_policy = delete            # or compact (latest record per MQTT topic)
 *   flush = interval                   # none, interval or always
 * }
 * </pre>
 * Unset storage settings come from the top-level {@code storage} block; retention defaults to
 * Kafka's (7 days, no byte limit, delete). The name is the Kafka topic's: Kafka's topic name rules
 * apply, and two names Kafka would confuse ({@code a.b} and {@code a_b}) are refused.
 *
 * @param dir      {@code streams.dir}, relative to the working directory
 * @param streams  the configured streams, by name
 * @param defaults the storage settings of a stream that sets none, also those of streams Kafka clients create
 * @param adapter  {@code streams.enable_cache} and {@code streams.rocksdb_*}: settings of the streams' storage adapter
 */
public record StreamsConfig(Path dir, List<StreamSettings> streams, LogSettings defaults, StorageAdapterSettings adapter) {
    static final String DIR = "dir";
    private static final Set<String> ADAPTER_BYTES = Set.of(StorageAdapterSettings.ROCKSDB_BLOCK_CACHE_BYTES,
            StorageAdapterSettings.ROCKSDB_WRITE_BUFFER_BYTES, StorageAdapterSettings.ROCKSDB_SHARD_WRITE_BUFFER_BYTES);
    private static final long KAFKA_RETENTION_MS = 7L * 24 * 60 * 60 * 1000;

    public StreamsConfig {
        streams = List.copyOf(streams);
    }

    static StreamsConfig read(ConfigReader r) {
        LogSettings defaults = ExchangeConfig.storageDefaults(r).toBuilder()
                .retentionMs(KAFKA_RETENTION_MS)
                .retentionBytes(LogSettings.UNLIMITED)
                .cleanupPolicy(CleanupPolicy.DELETE)
                .build();
        Path dir = r.path("streams." + DIR, "data/streams");
        List<StreamSettings> streams = new ArrayList<>();
        Map<String, String> kafkaNames = new HashMap<>();
        StorageAdapterSettings adapter = adapterSettings(r);
        for (String name : r.blockNames("streams")) {
            if (name.equals(DIR) || name.equals(StorageAdapterSettings.ENABLE_CACHE) || ADAPTER_BYTES.contains(name)) {
                continue;
            }
            String path = ConfigUtil.joinPath("streams", name);
            if (!r.isBlock(path)) {
                throw new ConfigError(path, "must be a block { topic = ..., partitions = ... } (the settings of"
                        + " streams themselves are dir, enable_cache and rocksdb_*)");
            }
            String problem = StreamName.problem(name);
            if (problem != null) {
                throw new ConfigError(path, "is not a valid stream name: " + problem);
            }
            String other = kafkaNames.putIfAbsent(name.replace('.', '_'), name);
            if (other != null) {
                throw new ConfigError(path, "collides with stream '" + other + "': Kafka clients treat '.' and '_'"
                        + " in topic names alike (in metric names), so only one of them can exist");
            }
            streams.add(stream(r, path, name, defaults));
        }
        return new StreamsConfig(dir, streams, defaults, adapter);
    }

    /** The adapter-wide keys; the rocksdb ones are sizes ({@code 64MB}). */
    private static StorageAdapterSettings adapterSettings(ConfigReader r) {
        StorageAdapterSettings defaults = StorageAdapterSettings.defaults();
        boolean cache = r.bool("streams." + StorageAdapterSettings.ENABLE_CACHE, false);
        long blockCache = r.bytes("streams." + StorageAdapterSettings.ROCKSDB_BLOCK_CACHE_BYTES,
                defaults.rocksdbBlockCacheBytes(), 1, Long.MAX_VALUE);
        long writeBuffers = r.bytes("streams." + StorageAdapterSettings.ROCKSDB_WRITE_BUFFER_BYTES,
                defaults.rocksdbWriteBufferBytes(), 1, Long.MAX_VALUE);
        long shardWriteBuffer = r.bytes("streams." + StorageAdapterSettings.ROCKSDB_SHARD_WRITE_BUFFER_BYTES,
                defaults.rocksdbShardWriteBufferBytes(), 1, Long.MAX_VALUE);
        try {
            return new StorageAdapterSettings(blockCache, writeBuffers, shardWriteBuffer, cache);
        } catch (InvalidSettingException e) {
            throw new ConfigError("streams." + e.key(), e.problem());
        }
    }

    private static StreamSettings stream(ConfigReader r, String path, String name, LogSettings defaults) {
        if (!r.has(path + ".topic") && r.holdsBlock(path)) {
            throw new ConfigError(path + ".topic", "is required; a stream name containing '.' must be quoted:"
                    + " streams.\"a.b\" { ... }");
        }
        String topic = r.requiredString(path + ".topic");
        try {
            TopicFilter.parse(topic, 0);
        } catch (InvalidTopicException e) {
            throw new ConfigError(path + ".topic", "is not a valid MQTT topic filter: " + e.getMessage());
        }
        int partitions = (int) r.integer(path + ".partitions", 1, 1, StreamSettings.MAX_PARTITIONS);
        PartitionKey key = PartitionKey.fromConfig(r.choice(path + ".partition_key", PartitionKey.TOPIC.configName(),
                "topic", "clientid", "round_robin"));
        Engine engine;
        try {
            engine = StreamSettings.engine(r.string(path + ".engine", "segment").toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ConfigError.in(path, e);
        }
        LogSettings.Builder log = defaults.toBuilder()
                .retentionMs(retention(r, path + "." + LogSettings.RETENTION_MS, defaults.retentionMs(), false))
                .retentionBytes(retention(r, path + "." + LogSettings.RETENTION_BYTES, defaults.retentionBytes(), true))
                .segmentBytes((int) r.bytes(path + "." + LogSettings.SEGMENT_BYTES, defaults.segmentBytes(),
                        LogSettings.MIN_SEGMENT_BYTES, Integer.MAX_VALUE))
                .cleanupPolicy(CleanupPolicy.fromConfig(r.choice(path + "." + LogSettings.CLEANUP_POLICY,
                        defaults.cleanupPolicy().configName(), "delete", "compact")))
                .flush(FlushPolicy.fromConfig(r.choice(path + "." + LogSettings.FLUSH, defaults.flush().configName(),
                        "none", "interval", "always")));
        try {
            return new StreamSettings(name, topic, partitions, key, engine, log.build());
        } catch (IllegalArgumentException e) {
            throw ConfigError.in(path, e);
        }
    }

    /** {@code -1} (unlimited), or a duration ({@code 7d}, a bare number being milliseconds) or a size. */
    private static long retention(ConfigReader r, String path, long fallback, boolean bytes) {
        String text = r.string(path, null);
        if (text == null) {
            return fallback;
        }
        if (text.trim().equals("-1")) {
            return LogSettings.UNLIMITED;
        }
        return bytes ? r.bytes(path, fallback, 1, Long.MAX_VALUE) : ExchangeConfig.milliseconds(r, path, fallback);
    }
}
