package io.sluice.storage;

import io.sluice.settings.InvalidSettingException;

/** What keeps a log from growing without bound ({@code cleanup_policy}, as Kafka's {@code cleanup.policy}). */
public enum CleanupPolicy {
    /** Retention deletes whole segments by age ({@code retention_ms}) and total size ({@code retention_bytes}). */
    DELETE("delete"),
    /** The cleaner keeps the latest record per key; tombstones go after {@code delete_retention_ms}. */
    COMPACT("compact");

    private final String configName;

    CleanupPolicy(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    /** Parses a configuration value; the error names the key and the value. */
    public static CleanupPolicy fromConfig(String value) {
        for (CleanupPolicy policy : values()) {
            if (policy.configName.equals(value)) {
                return policy;
            }
        }
        throw new InvalidSettingException("cleanup_policy", "expected delete or compact, got '" + value + "'");
    }
}
