package io.sluice.server.config;

import io.sluice.exchange.Durability;
import io.sluice.exchange.ExchangeSettings;
import io.sluice.parquet.Compression;
import io.sluice.parquet.ParquetSettings;
import io.sluice.query.QueryServerSettings;
import io.sluice.ringbus.FullOp;
import io.sluice.ringbus.RingSettings;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogSettings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One exchange path as configured, NanoMQ-style:
 * <pre>
 * exchange_client.&lt;id&gt; {
 *   exchange_url = "tcp://127.0.0.1:10000"      # its query endpoint; port * picks a free one
 *   limit_frequency = 5                        # queries per 5 s, 0 = unlimited
 *   max_frame_bytes = 1MB                      # async reply frame bound
 *   max_sync_bytes = 256MB, send_timeout = 10s, spool_dir = ..., query_nice = 19
 *   exchange { name, topic, streamType, flush_interval, max_batch_bytes, durability,
 *              ringbus { name, cap, fullOp, slots, spill_dir }, parquet { ... }, storage { ... },
 *              plugin { ... } }
 * }
 * </pre>
 * Top-level {@code parquet { }} and {@code storage { }} blocks give every exchange's defaults; the
 * {@code storage} block ({@code dir, segment_bytes, segment_ms, index_interval_bytes, flush,
 * flush_interval_ms, flush_messages, retention_ms, retention_bytes}) configures the write-ahead
 * logs of exchanges with {@code durability = wal}.
 *
 * @param id       the block's id ({@code mq1} in {@code exchange_client.mq1})
 * @param exchange the validated exchange settings
 * @param query    its query endpoint: {@code exchange_url}, {@code limit_frequency},
 *                 {@code max_frame_bytes}, {@code max_sync_bytes}, {@code send_timeout}, {@code spool_dir}, {@code query_nice}
 */
public record ExchangeConfig(String id, ExchangeSettings exchange, QueryServerSettings query) {

    /** The path prefix of this exchange's keys, for error messages. */
    public String path() {
        return "exchange_client." + id + ".exchange";
    }

    /** The write-ahead log's directory (null: derived) and settings, as a {@code storage} block gives them. */
    private record Storage(Path dir, LogSettings log) {
    }

    /** Reads every {@code exchange_client} block; names and URLs must be unique. */
    static List<ExchangeConfig> read(ConfigReader r) {
        ParquetSettings defaults = parquet(r, "", ParquetSettings.defaults("data/parquet"));
        Storage storage = storage(r, "storage", new Storage(null, ExchangeSettings.WAL_DEFAULTS));
        List<ExchangeConfig> exchanges = new ArrayList<>();
        Map<String, String> names = new HashMap<>();
        Map<String, String> urls = new HashMap<>();
        for (String id : r.blockNames("exchange_client")) {
            ExchangeConfig config = read(r, id, defaults, storage);
            unique(names, config.exchange().name(), "exchange_client." + id + ".exchange.name", "exchange name");
            if (!config.query().ephemeralPort()) {
                unique(urls, config.query().url(), "exchange_client." + id + ".exchange_url", "exchange_url");
            }
            exchanges.add(config);
        }
        return exchanges;
    }

    private static void unique(Map<String, String> seen, String value, String path, String what) {
        String other = seen.putIfAbsent(value, path);
        if (other != null) {
            throw new ConfigError(path, what + " '" + value + "' is already used at " + other);
        }
    }

    private static ExchangeConfig read(ConfigReader r, String id, ParquetSettings defaults, Storage storageDefaults) {
        String client = "exchange_client." + id;
        String base = client + ".exchange";
        QueryServerSettings query = query(r, client);
        try {
            RingSettings ring = ring(r, base);
            ParquetSettings parquet = parquet(r, base, defaults);
            Durability durability = Durability.fromConfig(r.choice(base + ".durability",
                    ExchangeSettings.DEFAULT_DURABILITY.configName(), "none", "wal"));
            Storage storage = storage(r, base + ".storage", storageDefaults);
            ExchangeSettings exchange = new ExchangeSettings(r.requiredString(base + ".name"),
                    r.requiredString(base + ".topic"), (int) r.integer(base + ".streamType", 0, 0, 65535), ring,
                    parquet, new LinkedHashMap<>(r.block(base + ".plugin")), durability, storage.dir(), storage.log());
            return new ExchangeConfig(id, exchange, query);
        } catch (IllegalArgumentException e) {
            throw ConfigError.in(base, e);
        }
    }

    private static QueryServerSettings query(ConfigReader r, String client) {
        QueryServerSettings d = QueryServerSettings.defaults(QueryServerSettings.DEFAULT_URL);
        Path spoolDir = r.path(client + ".spool_dir", null);
        try {
            return new QueryServerSettings(
                    r.string(client + ".exchange_url", d.url()),
                    (int) r.integer(client + ".limit_frequency", d.limitFrequency(), Integer.MIN_VALUE, Integer.MAX_VALUE),
                    (int) r.bytes(client + ".max_frame_bytes", d.maxFrameBytes(), 0, Integer.MAX_VALUE),
                    (int) r.bytes(client + ".max_sync_bytes", d.maxSyncBytes(), 0, Integer.MAX_VALUE),
                    Duration.ofMillis(r.millis(client + ".send_timeout", d.sendTimeout().toMillis(), 0, Long.MAX_VALUE)),
                    spoolDir == null ? d.spoolDir() : spoolDir,
                    (int) r.integer(client + ".query_nice", d.nice(), Integer.MIN_VALUE, Integer.MAX_VALUE));
        } catch (IllegalArgumentException e) {
            throw ConfigError.in(client, e);
        }
    }

    private static RingSettings ring(ConfigReader r, String base) {
        RingSettings d = RingSettings.defaults();
        String ring = base + ".ringbus";
        Path spillDir = r.path(ring + ".spill_dir", null);
        return new RingSettings(
                r.string(ring + ".name", d.name()),
                (int) r.integer(ring + ".cap", d.cap(), Integer.MIN_VALUE, Integer.MAX_VALUE),
                FullOp.of((int) r.integer(ring + ".fullOp", FullOp.RETURN.code(), 0, 3)),
                Duration.ofMillis(r.millis(base + ".flush_interval", d.flushInterval().toMillis(), 0, Long.MAX_VALUE)),
                r.bytes(base + ".max_batch_bytes", d.maxBatchBytes(), 0, Long.MAX_VALUE),
                (int) r.integer(ring + ".slots", d.slots(), 0, Integer.MAX_VALUE),
                spillDir);
    }

    /**
     * The top-level {@code storage} block's log settings: what streams start from (each stream
     * then sets its own retention, segment size, cleanup policy and flush).
     */
    static LogSettings storageDefaults(ConfigReader r) {
        return storage(r, "storage", new Storage(null, ExchangeSettings.WAL_DEFAULTS)).log();
    }

    /**
     * A {@code storage} block, each key falling back to {@code defaults}. Durations in keys ending
     * {@code _ms} are milliseconds when bare ({@code 1000}) or carry a unit ({@code 1s}).
     */
    private static Storage storage(ConfigReader r, String path, Storage defaults) {
        LogSettings d = defaults.log();
        Path dir = r.path(path + ".dir", null);
        unlimitedOnly(r, path + "." + LogSettings.RETENTION_MS);
        unlimitedOnly(r, path + "." + LogSettings.RETENTION_BYTES);
        LogSettings.Builder log = d.toBuilder()
                .segmentBytes((int) r.bytes(path + "." + LogSettings.SEGMENT_BYTES, d.segmentBytes(), LogSettings.MIN_SEGMENT_BYTES,
                        Integer.MAX_VALUE))
                .segmentMs(milliseconds(r, path + "." + LogSettings.SEGMENT_MS, d.segmentMs()))
                .indexIntervalBytes((int) r.bytes(path + "." + LogSettings.INDEX_INTERVAL_BYTES, d.indexIntervalBytes(), 0,
                        Integer.MAX_VALUE))
                .flush(FlushPolicy.fromConfig(r.choice(path + "." + LogSettings.FLUSH, d.flush().configName(),
                        "none", "interval", "always")))
                .flushIntervalMs(milliseconds(r, path + "." + LogSettings.FLUSH_INTERVAL_MS, d.flushIntervalMs()))
                .flushMessages(r.integer(path + "." + LogSettings.FLUSH_MESSAGES, d.flushMessages(), 1, Long.MAX_VALUE));
        try {
            return new Storage(dir == null ? defaults.dir() : dir, log.build());
        } catch (IllegalArgumentException e) {
            throw ConfigError.in(path, e);
        }
    }

    /** A duration in milliseconds: a bare number is milliseconds, as the key's name says; {@code 10s}, {@code 1h} also work. */
    static long milliseconds(ConfigReader r, String path, long fallback) {
        String text = r.string(path, null);
        if (text == null) {
            return fallback;
        }
        if (text.trim().matches("\\d+")) {
            return r.integer(path, fallback, 1, Long.MAX_VALUE);
        }
        return r.millis(path, fallback, 1, Long.MAX_VALUE);
    }

    /** The write-ahead log keeps every record until it is in Parquet: its retention can only be unlimited. */
    private static void unlimitedOnly(ConfigReader r, String path) {
        String text = r.string(path, null);
        if (text != null && !text.trim().equals("-1")) {
            throw new ConfigError(path, "must be -1 (unlimited): the write-ahead log is trimmed as soon as its records are in"
                    + " Parquet, and retention would delete records not written yet; got '" + text + "'");
        }
    }

    /**
     * The {@code parquet} block inside {@code block} (empty: the top level), each key falling back
     * to {@code defaults}; its keys are named relative to {@code block}, as ParquetSettings names them.
     */
    private static ParquetSettings parquet(ConfigReader r, String block, ParquetSettings defaults) {
        String path = block.isEmpty() ? "parquet" : block + ".parquet";
        try {
            Compression compression = Compression.of(r.string(path + ".compress", defaults.compress().configName()));
            Map<String, String> hadoop = new HashMap<>(defaults.hadoop());
            r.block(path + ".hadoop").forEach((key, value) -> hadoop.put(key, String.valueOf(value)));
            return new ParquetSettings(compression,
                    r.string(path + ".dir", defaults.dir()),
                    r.string(path + ".file_name_prefix", defaults.fileNamePrefix()),
                    (int) r.integer(path + ".file_count", defaults.fileCount(), Integer.MIN_VALUE, Integer.MAX_VALUE),
                    r.bytes(path + ".file_size", defaults.fileSize(), 0, Long.MAX_VALUE),
                    Duration.ofMillis(r.millis(path + ".file_roll_interval", defaults.fileRollInterval().toMillis(), 0, Long.MAX_VALUE)),
                    Duration.ofMillis(r.millis(path + ".retention", defaults.retention().toMillis(), 0, Long.MAX_VALUE)),
                    (int) r.integer(path + ".queue_batches", defaults.queueBatches(), Integer.MIN_VALUE,
                            Integer.MAX_VALUE),
                    r.bytes(path + ".row_group_bytes", defaults.rowGroupBytes(), 0, Long.MAX_VALUE),
                    hadoop);
        } catch (IllegalArgumentException e) {
            throw ConfigError.in(block, e);
        }
    }
}
