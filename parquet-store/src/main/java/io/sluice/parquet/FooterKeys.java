package io.sluice.parquet;

/**
 * The key-value metadata every Sluice Parquet file carries in its footer, besides what the
 * exchange adds (its name, the stream plugin). Values are decimal text. Recovery at start-up reads
 * {@link #MAX_OFFSET} and {@link #MAX_TS} of the newest file to continue offsets and the clock.
 */
public final class FooterKeys {

    /** Smallest offset in the file. */
    public static final String MIN_OFFSET = "sluice.min_offset";
    /** Largest offset in the file. */
    public static final String MAX_OFFSET = "sluice.max_offset";
    /** Smallest ts in the file. */
    public static final String MIN_TS = "sluice.min_ts";
    /** Largest ts in the file. */
    public static final String MAX_TS = "sluice.max_ts";
    /** Rows in the file. */
    public static final String ROWS = "sluice.rows";
    /** Version of this metadata, {@value #FORMAT_VERSION}. */
    public static final String FORMAT = "sluice.format";
    /** The current metadata version. */
    public static final String FORMAT_VERSION = "1";
    /** The exchange that wrote the file (added by the exchange). */
    public static final String EXCHANGE = "sluice.exchange";
    /** The stream plugin id that encoded the file (added by the exchange). */
    public static final String STREAM_TYPE = "sluice.stream_type";
    /** The stream plugin's name (added by the exchange). */
    public static final String PLUGIN = "sluice.plugin";

    private FooterKeys() {
    }
}
