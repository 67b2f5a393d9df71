package io.sluice.streams;

import io.sluice.settings.InvalidSettingException;
/** How a stream picks the partition of a captured MQTT message ({@code partition_key}). */
public enum PartitionKey {
    /** Hash of the MQTT topic: every message of one topic in one partition, in order. */
    TOPIC("topic"),
    /** Hash of the publishing client id: every message of one client in one partition, in order. */
    CLIENTID("clientid"),
    /** One partition after the other: even spread, no order across partitions. */
    ROUND_ROBIN("round_robin");

    private final String configName;

    PartitionKey(String configName) {
        this.configName = configName;
    }

    /** The value written in configuration. */
    public String configName() {
        return configName;
    }

    /** Parses a configuration value; the error names the key and the value. */
    public static PartitionKey fromConfig(String value) {
        for (PartitionKey key : values()) {
            if (key.configName.equals(value)) {
                return key;
            }
        }
        throw new InvalidSettingException("partition_key", "expected topic, clientid or round_robin, got '" + value + "'");
    }
}
