package io.sluice.exchange;

import io.sluice.parquet.ParquetSettings;
import io.sluice.ringbus.FullOp;
import io.sluice.ringbus.RingSettings;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One exchange path's settings: the {@code exchange { }} block of an {@code exchange_client}.
 * Invalid values throw IllegalArgumentException whose message starts with the key path relative
 * to the {@code exchange} block ({@code name: ...}, {@code ringbus.cap: ...},
 * {@code parquet.dir: ...}); start-up prefixes {@code exchange_client.<id>.exchange.}.
 * {@code streamType} and {@code plugin.*} are checked when the exchange opens (they depend on the
 * plugins found), as is whether {@code parquet.dir} can be created.
 *
 * @param name       the exchange's name: letters, digits, {@code . _ -}, not starting with {@code .} or
 *                   {@code _}; it names threads, files and metrics, so it is unique
 * @param topic      the MQTT topic filter it captures (the broker matches; kept for reporting)
 * @param streamType the stream plugin id (0 RAW)
 * @param ring       the ring: {@code ringbus { name, cap, fullOp }}, {@code flush_interval},
 *                   {@code max_batch_bytes}; with no {@code spill_dir}, a local parquet dir gives
 *                   {@code <dir>/.spill/<name>}
 * @param parquet    the files: {@code parquet { ... }}
 * @param plugin     plugin-specific settings, the {@code plugin { }} block as plain values
 */
public record ExchangeSettings(String name, String topic, int streamType, RingSettings ring, ParquetSettings parquet,
                               Map<String, Object> plugin) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    private static final Pattern SCHEME = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*):.*");

    public ExchangeSettings {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name: must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit, was "
                    + (name == null ? "null" : "'" + name + "'"));
        }
        if (topic == null || topic.isEmpty()) {
            throw new IllegalArgumentException("topic: must be a non-empty MQTT topic filter");
        }
        if (streamType < 0) {
            throw new IllegalArgumentException("streamType: must be 0 or more, was " + streamType);
        }
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(parquet, "parquet");
        plugin = Map.copyOf(Objects.requireNonNull(plugin, "plugin"));
        if (ring.fullOp() == FullOp.FILE && ring.spillDir() == null && localDirectory(parquet.dir()) == null) {
            throw new IllegalArgumentException("ringbus.spill_dir: required when fullOp = 3 (FILE) and parquet.dir ("
                    + parquet.dir() + ") is not a local directory");
        }
    }

    /** RAW settings with defaults, files in {@code dir}. */
    public static ExchangeSettings defaults(String name, String topic, String dir) {
        return new ExchangeSettings(name, topic, 0, RingSettings.defaults(), ParquetSettings.defaults(dir), Map.of());
    }

    public ExchangeSettings withStreamType(int value) {
        return new ExchangeSettings(name, topic, value, ring, parquet, plugin);
    }

    public ExchangeSettings withRing(RingSettings value) {
        return new ExchangeSettings(name, topic, streamType, value, parquet, plugin);
    }

    public ExchangeSettings withParquet(ParquetSettings value) {
        return new ExchangeSettings(name, topic, streamType, ring, value, plugin);
    }

    public ExchangeSettings withPlugin(Map<String, Object> value) {
        return new ExchangeSettings(name, topic, streamType, ring, parquet, value);
    }

    /**
     * Where this exchange spills (fullOp FILE) and saves batches the writer could not write at
     * close: {@code ringbus.spill_dir} if set, else {@code <parquet dir>/.spill/<name>} when the
     * parquet dir is local, else null (then such batches are counted as lost).
     */
    public Path spillDir() {
        if (ring.spillDir() != null) {
            return ring.spillDir();
        }
        Path local = localDirectory(parquet.dir());
        return local == null ? null : local.resolve(".spill").resolve(name);
    }

    /** The local path of a directory setting, or null when it names another file system. */
    static Path localDirectory(String dir) {
        var scheme = SCHEME.matcher(dir);
        if (!scheme.matches()) {
            return Paths.get(dir).toAbsolutePath();
        }
        if (!scheme.group(1).equalsIgnoreCase("file")) {
            return null;
        }
        try {
            return Paths.get(java.net.URI.create(dir));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("parquet.dir: '" + dir + "' is not a valid file: URI: " + e.getMessage(), e);
        }
    }
}
