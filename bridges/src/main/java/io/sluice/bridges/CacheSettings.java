package io.sluice.bridges;

import java.nio.file.Path;
import java.util.Objects;

import io.sluice.settings.InvalidSettingException;
import io.sluice.storage.FlushPolicy;

/**
 * The backlog settings of a family of bridges: {@code bridges.mqtt.cache { }} for MQTT bridges,
 * {@code bridges.kafka.cache { }} for Kafka bridges, NanoMQ's keys plus Sluice's additions.
 *
 * @param dir              {@code mounted_file_path}: the folder of the bridges' storage (one shard per bridge)
 * @param maxMessages      {@code disk_cache_size}: messages a bridge's backlog holds at most; 0 for no count limit
 * @param maxBytes         {@code disk_cache_bytes}: bytes a bridge's backlog holds at most
 * @param fullPolicy       {@code full_policy}: what happens at the limit
 * @param flush            {@code flush}: when the backlog is forced to disk ({@code always} survives a power cut)
 * @param flushIntervalMs  {@code flush_interval}: for {@code flush = interval}, the longest time between fsyncs
 * @param flushMessages    {@code flush_mem_threshold}: for {@code flush = interval}, also fsync after this many messages
 */
public record CacheSettings(Path dir, long maxMessages, long maxBytes, FullPolicy fullPolicy, FlushPolicy flush,
                            long flushIntervalMs, long flushMessages) {

    public CacheSettings {
        Objects.requireNonNull(dir, "mounted_file_path");
        Objects.requireNonNull(fullPolicy, "full_policy");
        Objects.requireNonNull(flush, "flush");
        if (maxMessages < 0) {
            throw new InvalidSettingException("disk_cache_size", "must be 0 (no count limit) or more, got " + maxMessages);
        }
        if (maxBytes < 1024) {
            throw new InvalidSettingException("disk_cache_bytes", "must be at least 1KB, got " + maxBytes);
        }
        if (flushIntervalMs < 1) {
            throw new InvalidSettingException("flush_interval", "must be positive, got " + flushIntervalMs + " ms");
        }
        if (flushMessages < 1) {
            throw new InvalidSettingException("flush_mem_threshold", "must be at least 1, got " + flushMessages);
        }
    }

    /** The defaults under {@code dir}: 102,400 messages (NanoMQ's default), 1 GB, drop oldest, fsync every second. */
    public static CacheSettings defaults(Path dir) {
        return new CacheSettings(dir, 102_400, 1L << 30, FullPolicy.DROP_OLDEST, FlushPolicy.INTERVAL, 1000,
                Long.MAX_VALUE);
    }
}
