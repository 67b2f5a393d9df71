package io.sluice.parquet;

import io.sluice.settings.InvalidSettingException;
import java.util.Locale;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The compression of Parquet pages, as {@code parquet.compress} names it. Every choice works in
 * pure Java plus the native libraries bundled in their jars (zstd-jni, snappy-java); none needs
 * Hadoop's native libraries. {@code lz4} is Parquet's LZ4_RAW codec: the older Hadoop-framed LZ4
 * codec is deprecated by the Parquet format and read inconsistently by other tools.
 */
public enum Compression {
    UNCOMPRESSED(CompressionCodecName.UNCOMPRESSED),
    SNAPPY(CompressionCodecName.SNAPPY),
    GZIP(CompressionCodecName.GZIP),
    ZSTD(CompressionCodecName.ZSTD),
    LZ4(CompressionCodecName.LZ4_RAW);

    private final CompressionCodecName codec;

    Compression(CompressionCodecName codec) {
        this.codec = codec;
    }

    /** The Parquet codec written into files. */
    public CompressionCodecName codec() {
        return codec;
    }

    /**
     * The compression for a configuration value, case-insensitive.
     *
     * @throws InvalidSettingException for {@code parquet.compress}, naming the accepted values
     */
    public static Compression of(String value) {
        if (value != null) {
            for (Compression c : values()) {
                if (c.name().equals(value.toUpperCase(Locale.ROOT))) {
                    return c;
                }
            }
        }
        throw new InvalidSettingException("parquet.compress", "must be uncompressed, snappy, gzip, zstd or lz4, was " + value);
    }

    /** The configuration value. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
