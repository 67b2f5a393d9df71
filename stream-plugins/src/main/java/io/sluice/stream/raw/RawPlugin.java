package io.sluice.stream.raw;

import io.sluice.stream.PluginSettings;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.StreamPlugin;
import java.util.Set;

/** The built-in RAW stream plugin (streamType 0): payloads kept as they were published. */
public final class RawPlugin implements StreamPlugin {

    /** RAW's streamType. */
    public static final int ID = 0;
    /** RAW's name. */
    public static final String NAME = "raw";

    @Override
    public int id() {
        return ID;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** RAW takes no settings; any key in the exchange's {@code plugin { }} block is an error. */
    @Override
    public StreamCodec open(PluginSettings settings) {
        settings.allowOnly(Set.of(), NAME);
        return RawCodec.INSTANCE;
    }
}
