package io.sluice.storage;

import io.sluice.settings.InvalidSettingException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Settings of one segmented log, named by the keys of DESIGN.md's {@code storage} block. Every value
 * is checked when the record is built; a bad one throws {@link InvalidSettingException} with the
 * key (relative to the {@code storage} block) and the value. The server parses HOCON elsewhere and feeds keys through {@link Builder#set}.
 *
 * @param segmentBytes        {@code segment_bytes}: roll to a new segment before one grows past this
 * @param segmentMs           {@code segment_ms}: roll once a segment's records span this long
 * @param indexIntervalBytes  {@code index_interval_bytes}: bytes between sparse index entries
 * @param segmentIndexBytes   {@code segment_index_bytes}: preallocated size of each index; a full index rolls
 * @param flush               {@code flush}: none, interval or always
 * @param flushIntervalMs     {@code flush_interval_ms}: for {@code interval}, fsync at least this often
 * @param flushMessages       {@code flush_messages}: for {@code interval}, fsync after this many records
 * @param retentionMs         {@code retention_ms}: delete segments whose newest record is older; -1 keeps all
 * @param retentionBytes      {@code retention_bytes}: delete oldest segments beyond this total; -1 keeps all
 * @param cleanupPolicy       {@code cleanup_policy}: delete (retention) or compact (latest record per key)
 * @param deleteRetentionMs   {@code delete_retention_ms}: how long a compacted log keeps a tombstone
 * @param minCleanableDirtyRatio {@code min_cleanable_dirty_ratio}: share of uncleaned bytes that starts a cleaning
 */
public record LogSettings(
        int segmentBytes,
        long segmentMs,
        int indexIntervalBytes,
        int segmentIndexBytes,
        FlushPolicy flush,
        long flushIntervalMs,
        long flushMessages,
        long retentionMs,
        long retentionBytes,
        CleanupPolicy cleanupPolicy,
        long deleteRetentionMs,
        double minCleanableDirtyRatio) {

    public static final String SEGMENT_BYTES = "segment_bytes";
    public static final String SEGMENT_MS = "segment_ms";
    public static final String INDEX_INTERVAL_BYTES = "index_interval_bytes";
    public static final String SEGMENT_INDEX_BYTES = "segment_index_bytes";
    public static final String FLUSH = "flush";
    public static final String FLUSH_INTERVAL_MS = "flush_interval_ms";
    public static final String FLUSH_MESSAGES = "flush_messages";
    public static final String RETENTION_MS = "retention_ms";
    public static final String RETENTION_BYTES = "retention_bytes";
    public static final String CLEANUP_POLICY = "cleanup_policy";
    public static final String DELETE_RETENTION_MS = "delete_retention_ms";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min_cleanable_dirty_ratio";

    /** Smallest accepted segment: a few batch headers and records. */
    public static final int MIN_SEGMENT_BYTES = 1024;
    /** Smallest accepted index: a handful of entries. */
    public static final int MIN_SEGMENT_INDEX_BYTES = 1024;
    /** The value of {@code retention_ms} and {@code retention_bytes} that disables the limit. */
    public static final long UNLIMITED = -1;

    public LogSettings {
        between(SEGMENT_BYTES, segmentBytes, MIN_SEGMENT_BYTES, Integer.MAX_VALUE);
        between(SEGMENT_MS, segmentMs, 1, Long.MAX_VALUE);
        between(INDEX_INTERVAL_BYTES, indexIntervalBytes, 0, Integer.MAX_VALUE);
        between(SEGMENT_INDEX_BYTES, segmentIndexBytes, MIN_SEGMENT_INDEX_BYTES, Integer.MAX_VALUE);
        if (flush == null) {
            throw new InvalidSettingException(FLUSH, "must be none, interval or always, got null");
        }
        between(FLUSH_INTERVAL_MS, flushIntervalMs, 1, Long.MAX_VALUE);
        between(FLUSH_MESSAGES, flushMessages, 1, Long.MAX_VALUE);
        unlimitedOrPositive(RETENTION_MS, retentionMs);
        unlimitedOrPositive(RETENTION_BYTES, retentionBytes);
        if (cleanupPolicy == null) {
            throw new InvalidSettingException(CLEANUP_POLICY, "must be delete or compact, got null");
        }
        between(DELETE_RETENTION_MS, deleteRetentionMs, 0, Long.MAX_VALUE);
        if (!(minCleanableDirtyRatio >= 0.0 && minCleanableDirtyRatio <= 1.0)) {
            throw new InvalidSettingException(MIN_CLEANABLE_DIRTY_RATIO, "must be between 0 and 1, got "
                    + minCleanableDirtyRatio);
        }
    }

    /** Kafka's defaults where Kafka has the setting; {@code flush = interval} every second. */
    public static LogSettings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these values, to change a few. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.segmentBytes = segmentBytes;
        b.segmentMs = segmentMs;
        b.indexIntervalBytes = indexIntervalBytes;
        b.segmentIndexBytes = segmentIndexBytes;
        b.flush = flush;
        b.flushIntervalMs = flushIntervalMs;
        b.flushMessages = flushMessages;
        b.retentionMs = retentionMs;
        b.retentionBytes = retentionBytes;
        b.cleanupPolicy = cleanupPolicy;
        b.deleteRetentionMs = deleteRetentionMs;
        b.minCleanableDirtyRatio = minCleanableDirtyRatio;
        return b;
    }

    /** Every setting by its configuration key, in a stable order; {@link Builder#set} reads them back. */
    public Map<String, String> toMap() {
        Map<String, String> map = new LinkedHashMap<>();
        map.put(SEGMENT_BYTES, Integer.toString(segmentBytes));
        map.put(SEGMENT_MS, Long.toString(segmentMs));
        map.put(INDEX_INTERVAL_BYTES, Integer.toString(indexIntervalBytes));
        map.put(SEGMENT_INDEX_BYTES, Integer.toString(segmentIndexBytes));
        map.put(FLUSH, flush.configName());
        map.put(FLUSH_INTERVAL_MS, Long.toString(flushIntervalMs));
        map.put(FLUSH_MESSAGES, Long.toString(flushMessages));
        map.put(RETENTION_MS, Long.toString(retentionMs));
        map.put(RETENTION_BYTES, Long.toString(retentionBytes));
        map.put(CLEANUP_POLICY, cleanupPolicy.configName());
        map.put(DELETE_RETENTION_MS, Long.toString(deleteRetentionMs));
        map.put(MIN_CLEANABLE_DIRTY_RATIO, Double.toString(minCleanableDirtyRatio));
        return map;
    }

    private static void between(String key, long value, long min, long max) {
        if (value < min || value > max) {
            throw new InvalidSettingException(key, "must be between " + min + " and " + max + ", got " + value);
        }
    }

    private static void unlimitedOrPositive(String key, long value) {
        if (value != UNLIMITED && value < 1) {
            throw new InvalidSettingException(key, "must be -1 (unlimited) or at least 1, got " + value);
        }
    }

    /** Collects settings; unset ones keep their defaults; {@link #build} validates. */
    public static final class Builder {
        private int segmentBytes = 1 << 30;
        private long segmentMs = 7L * 24 * 60 * 60 * 1000;
        private int indexIntervalBytes = 4096;
        private int segmentIndexBytes = 10 * 1024 * 1024;
        private FlushPolicy flush = FlushPolicy.INTERVAL;
        private long flushIntervalMs = 1000;
        private long flushMessages = Long.MAX_VALUE;
        private long retentionMs = 7L * 24 * 60 * 60 * 1000;
        private long retentionBytes = UNLIMITED;
        private CleanupPolicy cleanupPolicy = CleanupPolicy.DELETE;
        private long deleteRetentionMs = 24L * 60 * 60 * 1000;
        private double minCleanableDirtyRatio = 0.5;

        private Builder() {
        }

        public Builder segmentBytes(int v) { segmentBytes = v; return this; }
        public Builder segmentMs(long v) { segmentMs = v; return this; }
        public Builder indexIntervalBytes(int v) { indexIntervalBytes = v; return this; }
        public Builder segmentIndexBytes(int v) { segmentIndexBytes = v; return this; }
        public Builder flush(FlushPolicy v) { flush = v; return this; }
        public Builder flushIntervalMs(long v) { flushIntervalMs = v; return this; }
        public Builder flushMessages(long v) { flushMessages = v; return this; }
        public Builder retentionMs(long v) { retentionMs = v; return this; }
        public Builder retentionBytes(long v) { retentionBytes = v; return this; }
        public Builder cleanupPolicy(CleanupPolicy v) { cleanupPolicy = v; return this; }
        public Builder deleteRetentionMs(long v) { deleteRetentionMs = v; return this; }
        public Builder minCleanableDirtyRatio(double v) { minCleanableDirtyRatio = v; return this; }

        /**
         * Sets one value by its configuration key, parsing the text. An unknown key or a value that
         * does not parse throws {@link IllegalArgumentException} naming both.
         */
        public Builder set(String key, String value) {
            switch (key) {
                case SEGMENT_BYTES -> segmentBytes = (int) parseLong(key, value, Integer.MAX_VALUE);
                case SEGMENT_MS -> segmentMs = parseLong(key, value, Long.MAX_VALUE);
                case INDEX_INTERVAL_BYTES -> indexIntervalBytes = (int) parseLong(key, value, Integer.MAX_VALUE);
                case SEGMENT_INDEX_BYTES -> segmentIndexBytes = (int) parseLong(key, value, Integer.MAX_VALUE);
                case FLUSH -> flush = FlushPolicy.fromConfig(value);
                case FLUSH_INTERVAL_MS -> flushIntervalMs = parseLong(key, value, Long.MAX_VALUE);
                case FLUSH_MESSAGES -> flushMessages = parseLong(key, value, Long.MAX_VALUE);
                case RETENTION_MS -> retentionMs = parseLong(key, value, Long.MAX_VALUE);
                case RETENTION_BYTES -> retentionBytes = parseLong(key, value, Long.MAX_VALUE);
                case CLEANUP_POLICY -> cleanupPolicy = CleanupPolicy.fromConfig(value);
                case DELETE_RETENTION_MS -> deleteRetentionMs = parseLong(key, value, Long.MAX_VALUE);
                case MIN_CLEANABLE_DIRTY_RATIO -> minCleanableDirtyRatio = parseDouble(key, value);
                default -> throw new IllegalArgumentException("unknown storage setting '" + key + "' (value '" + value + "')");
            }
            return this;
        }

        public LogSettings build() {
            return new LogSettings(segmentBytes, segmentMs, indexIntervalBytes, segmentIndexBytes, flush,
                    flushIntervalMs, flushMessages, retentionMs, retentionBytes, cleanupPolicy, deleteRetentionMs,
                    minCleanableDirtyRatio);
        }

        private static long parseLong(String key, String value, long max) {
            long parsed;
            try {
                parsed = Long.parseLong(value.trim());
            } catch (NumberFormatException | NullPointerException e) {
                throw new InvalidSettingException(key, "expected a whole number, got '" + value + "'", e);
            }
            if (parsed > max) {
                throw new InvalidSettingException(key, "must be at most " + max + ", got " + parsed);
            }
            return parsed;
        }

        private static double parseDouble(String key, String value) {
            try {
                return Double.parseDouble(value.trim());
            } catch (NumberFormatException | NullPointerException e) {
                throw new InvalidSettingException(key, "expected a number, got '" + value + "'", e);
            }
        }
    }
}
