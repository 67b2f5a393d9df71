package io.sluice.exchange;

import io.sluice.settings.InvalidSettingException;

/**
 * What an exchange promises about a captured message before its Parquet file is published
 * ({@code exchange.durability}).
 */
public enum Durability {
    /** Nothing: a captured message lives in memory (or a spill file) until its file is published; a crash loses it. */
    NONE("none"),
    /**
     * Every captured message is appended to the exchange's write-ahead log first, which assigns its
     * offset; a QoS 1/2 publish is acknowledged once the append is durable under the log's flush
     * policy, and what a crash left unwritten is written from the log at the next start.
     */
    WAL("wal");

    private final String configName;

    Durability(String configName) {
        this.configName = configName;
    }

    /** The value written in configuration. */
    public String configName() {
        return configName;
    }

    /** Parses a configuration value; the error names the key {@code durability} and the value. */
    public static Durability fromConfig(String value) {
        for (Durability durability : values()) {
            if (durability.configName.equals(value)) {
                return durability;
            }
        }
        throw new InvalidSettingException("durability", "must be none or wal, was '" + value + "'");
    }
}
