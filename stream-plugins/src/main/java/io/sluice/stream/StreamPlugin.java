package io.sluice.stream;

/**
 * A stream plugin: where the meaning of captured data lives. It has a numeric id (an exchange's
 * {@code streamType}), a name, and makes one {@link StreamCodec} per exchange from that
 * exchange's plugin settings. Built-in RAW (0) and SPI (1) implement this interface like any
 * third-party plugin found through {@link java.util.ServiceLoader}.
 *
 * <p>Implementations need a public no-argument constructor to be found by ServiceLoader and
 * must be thread-safe; {@link #open} runs at start-up on the thread that opens the exchange.
 */
public interface StreamPlugin {

    /** The {@code streamType} that selects this plugin, 0 or more. */
    int id();

    /** A short lower-case name for logs and metrics, e.g. {@code raw}. */
    String name();

    /**
     * The codec for one exchange.
     *
     * @throws IllegalArgumentException when a setting is unknown or invalid: an
     *                                  {@link io.sluice.settings.InvalidSettingException} with the
     *                                  setting's key path, e.g. {@code plugin.fields}
     */
    StreamCodec open(PluginSettings settings);
}
