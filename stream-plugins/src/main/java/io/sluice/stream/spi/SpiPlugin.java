package io.sluice.stream.spi;

import io.sluice.stream.PluginSettings;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.StreamPlugin;
import java.util.Set;

/**
 * The built-in SPI stream plugin (streamType 1): signal frames of vehicle and software-defined
 * vehicle data, one column per signal. {@link SpiCodec} documents the columns, commands and
 * decoded rows.
 */
public final class SpiPlugin implements StreamPlugin {

    /** SPI's streamType. */
    public static final int ID = 1;
    /** SPI's name. */
    public static final String NAME = "spi";

    @Override
    public int id() {
        return ID;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** SPI takes no settings; any key in the exchange's {@code plugin { }} block is an error. */
    @Override
    public StreamCodec open(PluginSettings settings) {
        settings.allowOnly(Set.of(), NAME);
        return new SpiCodec(settings.exchange());
    }
}
