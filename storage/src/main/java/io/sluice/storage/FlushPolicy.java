package io.sluice.storage;

import io.sluice.settings.InvalidSettingException;

/**
 * When a log forces its data to disk ({@code flush} in configuration). "Durable under the policy",
 * which is what readers and acknowledgements wait for, means: handed to the operating system for
 * {@code none} and {@code interval}, and fsynced for {@code always}.
 */
public enum FlushPolicy {
    /** Leave it to the operating system; only rolled segments are fsynced (so recovery can trust them). */
    NONE("none"),
    /** fsync every {@code flush_interval_ms} milliseconds or every {@code flush_messages} records. */
    INTERVAL("interval"),
    /** Group commit: a record counts as written only once fsynced; concurrent appends share one fsync. */
    ALWAYS("always");

    private final String configName;

    FlushPolicy(String configName) {
        this.configName = configName;
    }

    /** The value written in configuration. */
    public String configName() {
        return configName;
    }

    /** Parses a configuration value; the error names the key and the value. */
    public static FlushPolicy fromConfig(String value) {
        for (FlushPolicy policy : values()) {
            if (policy.configName.equals(value)) {
                return policy;
            }
        }
        throw new InvalidSettingException("flush", "expected none, interval or always, got '" + value + "'");
    }
}
