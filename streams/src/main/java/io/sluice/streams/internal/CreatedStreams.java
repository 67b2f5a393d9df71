package io.sluice.streams.internal;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import io.sluice.storage.LogSettings;
import io.sluice.streams.PartitionKey;
import io.sluice.streams.StreamSettings;

/**
 * The streams created at run time (by Kafka CreateTopics), kept in the {@link StateLog} under
 * {@code stream/<name>} as Java properties: {@code topic}, {@code partitions}, {@code partition_key},
 * {@code engine} and every storage setting by its configuration key.
 */
public final class CreatedStreams {
    private static final String PREFIX = "stream/";

    private final StateLog state;

    public CreatedStreams(StateLog state) {
        this.state = state;
    }

    /**
     * Every created stream, by name. An entry that no longer parses (written by a newer version)
     * is reported by the exception, with its name.
     */
    public Map<String, StreamSettings> all() {
        Map<String, StreamSettings> streams = new LinkedHashMap<>();
        state.entries(PREFIX).forEach((name, bytes) -> streams.put(name, decode(name, bytes)));
        return streams;
    }

    public void put(StreamSettings settings) {
        state.put(PREFIX + settings.name(), encode(settings));
    }

    public void remove(String name) {
        state.remove(PREFIX + name);
    }

    static byte[] encode(StreamSettings settings) {
        Properties properties = new Properties();
        properties.setProperty("topic", settings.topic());
        properties.setProperty("partitions", Integer.toString(settings.partitions()));
        properties.setProperty("partition_key", settings.partitionKey().configName());
        properties.setProperty("engine", settings.engine().configName());
        settings.log().toMap().forEach(properties::setProperty);
        StringWriter text = new StringWriter();
        try {
            properties.store(text, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    static StreamSettings decode(String name, byte[] bytes) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(new String(bytes, StandardCharsets.UTF_8)));
            LogSettings.Builder log = LogSettings.builder();
            for (String key : properties.stringPropertyNames()) {
                if (!Map.of("topic", 1, "partitions", 1, "partition_key", 1, "engine", 1).containsKey(key)) {
                    log.set(key, properties.getProperty(key));
                }
            }
            return new StreamSettings(name, properties.getProperty("topic"),
                    Integer.parseInt(properties.getProperty("partitions", "")),
                    PartitionKey.fromConfig(properties.getProperty("partition_key")),
                    StreamSettings.engine(properties.getProperty("engine")), log.build());
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("created stream '" + name + "' in " + StateLog.SHARD + " cannot be read: "
                    + e.getMessage(), e);
        }
    }
}
