package io.sluice.stream;

import io.sluice.stream.raw.RawPlugin;

/** A plugin listed for ServiceLoader in the test resources; it behaves like RAW under id 42. */
public final class EchoPlugin implements StreamPlugin {

    @Override
    public int id() {
        return 42;
    }

    @Override
    public String name() {
        return "echo";
    }

    @Override
    public StreamCodec open(PluginSettings settings) {
        return new RawPlugin().open(settings);
    }
}
