package io.sluice.exchange;

import io.sluice.parquet.ParquetSettings;
import io.sluice.ringbus.FullOp;
import io.sluice.ringbus.RingSettings;
import io.sluice.settings.InvalidSettingException;
import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogSettings;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One exchange path's settings: the {@code exchange { }} block of an {@code exchange_client}.
 * Invalid values throw {@link InvalidSettingException} with the key path relative to the
 * {@code exchange} block ({@code name}, {@code ringbus.cap}, {@code parquet.dir}); start-up puts
 * it under {@code exchange_client.<id>.exchange}.
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
 * @param durability {@code durability}: {@link Durability#WAL} appends every captured message to the
 *                   exchange's write-ahead log first
 * @param walDir     {@code storage.dir}: the directory holding the write-ahead logs, one
 *                   subdirectory per exchange; null gives {@code <parquet dir>/.wal} for a local
 *                   parquet dir (required otherwise, with {@code wal})
 * @param wal        the write-ahead log's settings, the {@code storage { }} block: segments, indexes
 *                   and the flush policy under which a message counts as durable; retention must be
 *                   -1 (unlimited), since the log is trimmed once its records are in Parquet
 */
public record ExchangeSettings(String name, String topic, int streamType, RingSettings ring, ParquetSettings parquet,
                               Map<String, Object> plugin, Durability durability, Path walDir, LogSettings wal) {

    /** The durability of an exchange that does not say. */
    public static final Durability DEFAULT_DURABILITY = Durability.WAL;

    /**
     * The write-ahead log's defaults: 64 MiB segments rolled at least hourly (so trimming frees disk
     * soon after the Parquet files are written), 1 MiB indexes, fsync every second
     * ({@code flush = interval}: an acknowledged message survives a crash of the process; use
     * {@code always} to survive a power cut), no time or size retention.
     */
    public static final LogSettings WAL_DEFAULTS = LogSettings.builder()
            .segmentBytes(64 << 20)
            .segmentMs(60L * 60 * 1000)
            .segmentIndexBytes(1 << 20)
            .flush(FlushPolicy.INTERVAL)
            .flushIntervalMs(1000)
            .retentionMs(LogSettings.UNLIMITED)
            .retentionBytes(LogSettings.UNLIMITED)
            .build();

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    private static final Pattern SCHEME = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*):.*");

    public ExchangeSettings {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidSettingException("name", "must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit, was "
                    + (name == null ? "null" : "'" + name + "'"));
        }
        if (topic == null || topic.isEmpty()) {
            throw new InvalidSettingException("topic", "must be a non-empty MQTT topic filter");
        }
        if (streamType < 0) {
            throw new InvalidSettingException("streamType", "must be 0 or more, was " + streamType);
        }
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(parquet, "parquet");
        plugin = Map.copyOf(Objects.requireNonNull(plugin, "plugin"));
        if (durability == null) {
            throw new InvalidSettingException("durability", "must be none or wal, was null");
        }
        checkWal(wal);
        if (durability == Durability.NONE && ring.fullOp() == FullOp.FILE && ring.spillDir() == null
                && localDirectory(parquet.dir()) == null) {
            throw new InvalidSettingException("ringbus.spill_dir", "required when fullOp = 3 (FILE) and parquet.dir ("
                    + parquet.dir() + ") is not a local directory");
        }
        if (durability == Durability.WAL && walDir == null && localDirectory(parquet.dir()) == null) {
            throw new InvalidSettingException("storage.dir", "required when durability = wal and parquet.dir ("
                    + parquet.dir() + ") is not a local directory: the write-ahead log lives on a local disk");
        }
    }

    /** The write-ahead log must keep every record until the exchange trims it. */
    private static void checkWal(LogSettings wal) {
        if (wal == null) {
            throw new InvalidSettingException("storage", "the write-ahead log's settings are missing");
        }
        String why = "must be -1 (unlimited); the write-ahead log is trimmed as soon as its records are in Parquet,"
                + " and retention would delete records not written yet";
        if (wal.retentionMs() != LogSettings.UNLIMITED) {
            throw new InvalidSettingException("storage.retention_ms", why + ", was " + wal.retentionMs());
        }
        if (wal.retentionBytes() != LogSettings.UNLIMITED) {
            throw new InvalidSettingException("storage.retention_bytes", why + ", was " + wal.retentionBytes());
        }
        if (wal.cleanupPolicy() != CleanupPolicy.DELETE) {
            throw new InvalidSettingException("storage.cleanup_policy", "must be delete; a write-ahead log is never compacted, was "
                    + wal.cleanupPolicy().configName());
        }
    }

    /** RAW settings with defaults, files in {@code dir}, {@link #DEFAULT_DURABILITY}. */
    public static ExchangeSettings defaults(String name, String topic, String dir) {
        return new ExchangeSettings(name, topic, 0, RingSettings.defaults(), ParquetSettings.defaults(dir), Map.of(),
                DEFAULT_DURABILITY, null, WAL_DEFAULTS);
    }

    public ExchangeSettings withStreamType(int value) {
        return new ExchangeSettings(name, topic, value, ring, parquet, plugin, durability, walDir, wal);
    }

    public ExchangeSettings withRing(RingSettings value) {
        return new ExchangeSettings(name, topic, streamType, value, parquet, plugin, durability, walDir, wal);
    }

    public ExchangeSettings withParquet(ParquetSettings value) {
        return new ExchangeSettings(name, topic, streamType, ring, value, plugin, durability, walDir, wal);
    }

    public ExchangeSettings withPlugin(Map<String, Object> value) {
        return new ExchangeSettings(name, topic, streamType, ring, parquet, value, durability, walDir, wal);
    }

    public ExchangeSettings withDurability(Durability value) {
        return new ExchangeSettings(name, topic, streamType, ring, parquet, plugin, value, walDir, wal);
    }

    public ExchangeSettings withWalDir(Path value) {
        return new ExchangeSettings(name, topic, streamType, ring, parquet, plugin, durability, value, wal);
    }

    public ExchangeSettings withWal(LogSettings value) {
        return new ExchangeSettings(name, topic, streamType, ring, parquet, plugin, durability, walDir, value);
    }

    /**
     * This exchange's write-ahead log directory: {@code <storage.dir>/<name>}, or
     * {@code <parquet dir>/.wal/<name>} for a local parquet dir; null with durability none.
     */
    public Path walDirectory() {
        if (durability != Durability.WAL) {
            return null;
        }
        Path parent = walDir != null ? walDir.toAbsolutePath() : localDirectory(parquet.dir()).resolve(".wal");
        return parent.resolve(name);
    }

    /**
     * Where this exchange spills (fullOp FILE without a write-ahead log) and saves batches the
     * writer could not write at close (and the log does not hold): {@code ringbus.spill_dir} if
     * set, else {@code <parquet dir>/.spill/<name>} when the parquet dir is local, else null (then
     * such batches are counted as lost).
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
            throw new InvalidSettingException("parquet.dir", "'" + dir + "' is not a valid file: URI: " + e.getMessage(), e);
        }
    }
}
