package io.sluice.server.config;

import io.sluice.settings.InvalidSettingException;

/**
 * A configuration value that is missing, unknown, of the wrong type or impossible: names the key
 * by its full path and keeps what caused it. Its message is the one line start-up prints.
 */
public final class ConfigError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String path;

    public ConfigError(String path, String problem) {
        this(path, problem, null);
    }

    public ConfigError(String path, String problem, Throwable cause) {
        super(path + ": " + problem, cause);
        this.path = path;
    }

    /**
     * An error of the settings of {@code block} (a full path such as {@code exchange_client.a.exchange},
     * or empty for the top level): an {@link InvalidSettingException}'s key is put under the
     * block; any other error is reported at the block itself.
     */
    public static ConfigError in(String block, IllegalArgumentException e) {
        if (e instanceof InvalidSettingException invalid) {
            InvalidSettingException absolute = invalid.under(block);
            return new ConfigError(absolute.key(), absolute.problem(), e);
        }
        return new ConfigError(block, e.getMessage() == null ? e.toString() : e.getMessage(), e);
    }

    /** The HOCON path of the offending key, e.g. {@code mqtt.max_packet_size}. */
    public String path() {
        return path;
    }
}
