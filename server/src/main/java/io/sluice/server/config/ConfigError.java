package io.sluice.server.config;

/** A configuration value that is missing, unknown, of the wrong type or impossible; names the key. */
public final class ConfigError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String path;

    public ConfigError(String path, String problem) {
        super(path + ": " + problem);
        this.path = path;
    }

    /** The HOCON path of the offending key, e.g. {@code mqtt.max_packet_size}. */
    public String path() {
        return path;
    }
}
