package io.sluice.streams;

import io.sluice.settings.InvalidSettingException;
import java.util.Objects;

import io.sluice.storage.Engine;
import io.sluice.storage.LogSettings;

/**
 * What one stream is ({@code streams.<name> { ... }}): the MQTT topic filter whose PUBLISHes it
 * appends, its partitions, how a message picks its partition, and how each partition is stored.
 * Checked when built: a bad value throws {@link InvalidSettingException} naming the key
 * ({@code "partitions: must be at least 1, got 0"}).
 *
 * @param name         the stream's name, also its Kafka topic name ({@link StreamName})
 * @param topic        {@code topic}: the MQTT topic filter, wildcards allowed
 * @param partitions   {@code partitions}: how many shards {@code <name>_<n>} hold it, at least 1
 * @param partitionKey {@code partition_key}
 * @param engine       {@code engine}: the storage engine of every partition
 * @param log          {@code retention_ms}, {@code retention_bytes}, {@code segment_bytes},
 *                     {@code cleanup_policy}, {@code flush} and the other storage settings
 */
public record StreamSettings(String name, String topic, int partitions, PartitionKey partitionKey, Engine engine,
                             LogSettings log) {
    /** The most partitions one stream may have. */
    public static final int MAX_PARTITIONS = 10_000;

    public StreamSettings {
        StreamName.check(name);
        if (topic == null || topic.isEmpty()) {
            throw new InvalidSettingException("topic", "is required (the MQTT topic filter whose messages the stream appends)");
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new InvalidSettingException("partitions", "must be between 1 and " + MAX_PARTITIONS + ", got " + partitions);
        }
        Objects.requireNonNull(partitionKey, "partition_key");
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(log, "log settings");
    }

    /** A stream with the defaults: partitioned by topic, on the segment engine, with {@code log}. */
    public static StreamSettings of(String name, String topic, int partitions, LogSettings log) {
        return new StreamSettings(name, topic, partitions, PartitionKey.TOPIC, Engine.SEGMENT, log);
    }

    /** A copy with another partition count. */
    public StreamSettings withPartitions(int count) {
        return new StreamSettings(name, topic, count, partitionKey, engine, log);
    }

    /** Parses {@code engine}: {@code segment}, {@code memory} or {@code rocksdb}. */
    public static Engine engine(String value) {
        for (Engine engine : Engine.values()) {
            if (engine.configName().equals(value)) {
                return engine;
            }
        }
        throw new InvalidSettingException("engine", "expected segment, memory or rocksdb, got '" + value + "'");
    }
}
