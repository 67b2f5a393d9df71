package io.sluice.storage;

import java.util.Objects;

/**
 * How one shard is stored: its engine and, for both engines, the log settings (the memory engine
 * honours {@code retention_ms}, {@code retention_bytes} and {@code cleanup_policy}; the rest shape
 * files and do not apply to it).
 */
public record ShardSettings(Engine engine, LogSettings log) {

    public ShardSettings {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(log, "log settings");
    }

    /** A segment-engine shard with these log settings. */
    public static ShardSettings segment(LogSettings log) {
        return new ShardSettings(Engine.SEGMENT, log);
    }

    /** A memory-engine shard with these log settings. */
    public static ShardSettings memory(LogSettings log) {
        return new ShardSettings(Engine.MEMORY, log);
    }
}
