package io.sluice.storage;

import io.sluice.settings.InvalidSettingException;

/** The storage engine behind one shard. */
public enum Engine {
    /** Records live in the heap and are gone after a restart; the shard itself is remembered. */
    MEMORY("memory"),
    /** The segmented append-only log on local disk. */
    SEGMENT("segment"),
    /** A column family of the adapter's one RocksDB instance, with key, tag and time indexes beside it. */
    ROCKSDB("rocksdb");

    private final String configName;

    Engine(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    /** Parses a configuration value; the error names the key and the value. */
    public static Engine fromConfig(String value) {
        for (Engine engine : values()) {
            if (engine.configName.equals(value)) {
                return engine;
            }
        }
        throw new InvalidSettingException("engine", "expected memory, segment or rocksdb, got '" + value + "'");
    }
}
