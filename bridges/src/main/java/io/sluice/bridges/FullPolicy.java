package io.sluice.bridges;

import java.util.Locale;

/**
 * What a bridge does with a new message when its backlog is at {@code disk_cache_size} messages or
 * {@code disk_cache_bytes} bytes ({@code full_policy}). Either way every message affected is counted
 * ({@code dropped_oldest} or {@code refused_full}) and logged; none disappears silently.
 */
public enum FullPolicy {
    /** Make room by dropping the oldest messages not yet acknowledged by the remote (the default). */
    DROP_OLDEST,
    /** Keep the backlog as it is and refuse the new message. */
    REFUSE_NEW;

    /** The value written in configuration. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a configuration value; the error lists the choices. */
    public static FullPolicy fromConfig(String value) {
        for (FullPolicy policy : values()) {
            if (policy.configName().equalsIgnoreCase(value)) {
                return policy;
            }
        }
        throw new IllegalArgumentException("must be drop_oldest or refuse_new, got '" + value + "'");
    }
}
