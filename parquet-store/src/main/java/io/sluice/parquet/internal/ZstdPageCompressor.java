package io.sluice.parquet.internal;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import io.sluice.settings.InvalidSettingException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.codec.ZstandardCodec;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * ZSTD page compression through one reused zstd context, one call per page. Parquet's ZSTD codec
 * opens a zstd stream per page, which allocates and clears zstd's window and match tables every
 * time: a sixth to a third of the time to compress a 1 MiB page here. The output is the same kind
 * of zstd frame, so every Parquet reader reads it. The compressed bytes are valid until the next
 * call (the caller copies them). Used by one writer thread; {@link #release()} frees the native
 * context.
 */
public final class ZstdPageCompressor implements BytesInputCompressor {

    private final ZstdCompressCtx context = new ZstdCompressCtx();
    private byte[] compressed = new byte[0];

    /** @param level a zstd level, as {@link #level} gives */
    public ZstdPageCompressor(int level) {
        context.setLevel(level);
    }

    /**
     * The level the store's Hadoop settings ask for: parquet's own key, default 3.
     *
     * @throws InvalidSettingException for the key when it is not a level zstd has
     */
    public static int level(Configuration settings) {
        String key = ZstandardCodec.PARQUET_COMPRESS_ZSTD_LEVEL;
        int level;
        try {
            level = settings.getInt(key, ZstandardCodec.DEFAULT_PARQUET_COMPRESS_ZSTD_LEVEL);
        } catch (NumberFormatException e) {
            throw new InvalidSettingException("parquet.hadoop." + key, "not a number: " + settings.get(key), e);
        }
        if (level < Zstd.minCompressionLevel() || level > Zstd.maxCompressionLevel()) {
            throw new InvalidSettingException("parquet.hadoop." + key, "zstd levels are " + Zstd.minCompressionLevel()
                    + " to " + Zstd.maxCompressionLevel() + ", was " + level);
        }
        return level;
    }

    @Override
    public BytesInput compress(BytesInput page) throws IOException {
        ByteBuffer in = page.toByteBuffer();
        byte[] source;
        int offset;
        int length = in.remaining();
        if (in.hasArray()) {
            source = in.array();
            offset = in.arrayOffset() + in.position();
        } else {
            source = new byte[length];
            in.get(source);
            offset = 0;
        }
        int bound = Math.toIntExact(Zstd.compressBound(length));
        if (compressed.length < bound) {
            compressed = new byte[bound];
        }
        int size = context.compressByteArray(compressed, 0, compressed.length, source, offset, length);
        return BytesInput.from(compressed, 0, size);
    }

    @Override
    public CompressionCodecName getCodecName() {
        return CompressionCodecName.ZSTD;
    }

    @Override
    public void release() {
        context.close();
    }
}
