package io.sluice.parquet.internal;

import io.sluice.stream.Column;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.LongVector;
import java.io.IOException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;

/**
 * INT64 values as {@code DELTA_BINARY_PACKED}, for the key columns {@code ts} and {@code offset}:
 * they grow by small steps, so the deltas pack into a few bits each, and the page compresses
 * faster and smaller than PLAIN's 8 bytes a value (docs/benchmarks.md, section 2, has the figures).
 * Statistics from the page's signed min and max.
 *
 * <p>Layout (Parquet's spec): a header {@code <block size = 128> <miniblocks = 4> <value count>
 * <first value, zigzag>} as ULEB128 varints, then per block of 128 deltas {@code <min delta,
 * zigzag ULEB128> <4 bit widths, a byte each> <4 miniblocks of 32 deltas - min delta, bit-packed
 * little-endian at their width>}. A last miniblock is padded to 32 values; miniblocks after the
 * last value are left out (their widths written as 0). Deltas wrap around on overflow, as the
 * spec says, so every long value round-trips.
 */
final class DeltaColumnEncoder extends ColumnEncoder {

    private static final int BLOCK = 128;
    private static final int MINIBLOCKS = 4;
    private static final int MINIBLOCK = BLOCK / MINIBLOCKS;

    private final long[] page;
    private final long[] deltas = new long[BLOCK];
    private final int[] widths = new int[MINIBLOCKS];
    private int count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private long bits;
    private int bitCount;

    DeltaColumnEncoder(Column column, ColumnDescriptor descriptor, ParquetProperties properties,
                       BytesInputCompressor compressor, PageBufferPool buffers) {
        super(column, descriptor, properties, compressor, buffers);
        this.page = new long[properties.getPageRowCountLimit()];
    }

    @Override
    int encode(ColumnVector vector, int from, int to) {
        LongVector longs = (LongVector) vector;
        long lo = min;
        long hi = max;
        for (int row = from; row < to; row++) {
            if (!longs.isNull(row)) {
                long value = longs.get(row);
                page[count++] = value;
                lo = Math.min(lo, value);
                hi = Math.max(hi, value);
            }
        }
        min = lo;
        max = hi;
        return to;
    }

    @Override
    boolean pageFull() {
        return openBytes() >= pageBytes;
    }

    @Override
    long openBytes() {
        return (long) count * Long.BYTES;
    }

    @Override
    Encoding pageEncoding() {
        return Encoding.DELTA_BINARY_PACKED;
    }

    @Override
    BytesInput pageValues() throws IOException {
        values.reset();
        putVarint(BLOCK);
        putVarint(MINIBLOCKS);
        putVarint(count);
        putVarint(count == 0 ? 0 : zigzag(page[0]));
        for (int first = 1; first < count; first += BLOCK) {
            writeBlock(first, Math.min(count, first + BLOCK));
        }
        return values.view();
    }

    /** Writes the deltas of values [from, to): the block's min delta, the widths, the miniblocks. */
    private void writeBlock(int from, int to) {
        int n = to - from;
        long minDelta = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            deltas[i] = page[from + i] - page[from + i - 1];
            minDelta = Math.min(minDelta, deltas[i]);
        }
        putVarint(zigzag(minDelta));
        int miniblocks = (n + MINIBLOCK - 1) / MINIBLOCK;
        java.util.Arrays.fill(widths, 0);
        for (int m = 0; m < miniblocks; m++) {
            long or = 0;
            int end = Math.min(n, (m + 1) * MINIBLOCK);
            for (int i = m * MINIBLOCK; i < end; i++) {
                deltas[i] -= minDelta;
                or |= deltas[i];
            }
            widths[m] = Long.SIZE - Long.numberOfLeadingZeros(or);
        }
        for (int width : widths) {
            values.putByte(width);
        }
        for (int m = 0; m < miniblocks; m++) {
            int width = widths[m];
            for (int i = m * MINIBLOCK; i < (m + 1) * MINIBLOCK; i++) {
                putBits(i < n ? deltas[i] : 0, width);
            }
        }
    }

    /** Appends the low {@code width} bits of {@code value}, least significant first. */
    private void putBits(long value, int width) {
        if (width > Integer.SIZE) {
            putBits(value & 0xFFFF_FFFFL, Integer.SIZE);
            putBits(value >>> Integer.SIZE, width - Integer.SIZE);
            return;
        }
        bits |= (value & ((1L << width) - 1)) << bitCount;
        bitCount += width;
        while (bitCount >= Byte.SIZE) {
            values.putByte((int) bits);
            bits >>>= Byte.SIZE;
            bitCount -= Byte.SIZE;
        }
    }

    private void putVarint(long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            values.putByte((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        values.putByte((int) v);
    }

    private static long zigzag(long value) {
        return (value << 1) ^ (value >> 63);
    }

    @Override
    Statistics<?> pageStatistics() {
        Statistics<?> statistics = Statistics.createStats(type);
        if (min <= max) {
            statistics.updateStats(min);
            statistics.updateStats(max);
        }
        return statistics;
    }

    @Override
    void resetPage() {
        count = 0;
        min = Long.MAX_VALUE;
        max = Long.MIN_VALUE;
    }
}
