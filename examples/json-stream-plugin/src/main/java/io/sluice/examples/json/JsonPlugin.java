package io.sluice.examples.json;

import io.sluice.stream.PluginSettings;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.StreamPlugin;

/**
 * The JSON stream plugin (streamType 2): JSON telemetry payloads become typed Parquet columns
 * for the fields an exchange names in its {@code plugin { fields = [...] }} block. Found by
 * {@link java.util.ServiceLoader} through {@code META-INF/services/io.sluice.stream.StreamPlugin};
 * {@link JsonCodec} documents the columns, commands and decoded records.
 */
public final class JsonPlugin implements StreamPlugin {

    /** The JSON plugin's streamType. */
    public static final int ID = 2;
    /** Its name. */
    public static final String NAME = "json";

    @Override
    public int id() {
        return ID;
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * @throws io.sluice.settings.InvalidSettingException for the key, e.g. {@code plugin.fields[2]: unknown type 'dbl'}
     */
    @Override
    public StreamCodec open(PluginSettings settings) {
        return new JsonCodec(settings.exchange(), JsonSettings.fields(settings));
    }
}
