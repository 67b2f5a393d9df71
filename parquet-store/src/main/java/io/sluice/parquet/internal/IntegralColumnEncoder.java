package io.sluice.parquet.internal;

import io.sluice.stream.Column;
import io.sluice.stream.ColumnType;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.IntVector;
import io.sluice.stream.LongVector;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;

/** INT64 or INT32 values, PLAIN (little-endian); statistics from the page's signed min and max. */
final class IntegralColumnEncoder extends ColumnEncoder {

    private final boolean wide;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    IntegralColumnEncoder(Column column, ColumnDescriptor descriptor, ParquetProperties properties,
                          BytesInputCompressor compressor, PageBufferPool buffers) {
        super(column, descriptor, properties, compressor, buffers);
        this.wide = column.type() == ColumnType.INT64;
    }

    @Override
    int encode(ColumnVector vector, int from, int to) {
        long lo = min;
        long hi = max;
        if (wide) {
            LongVector longs = (LongVector) vector;
            for (int row = from; row < to; row++) {
                if (!longs.isNull(row)) {
                    long value = longs.get(row);
                    values.putLong(value);
                    lo = Math.min(lo, value);
                    hi = Math.max(hi, value);
                }
            }
        } else {
            IntVector ints = (IntVector) vector;
            for (int row = from; row < to; row++) {
                if (!ints.isNull(row)) {
                    int value = ints.get(row);
                    values.putInt(value);
                    lo = Math.min(lo, value);
                    hi = Math.max(hi, value);
                }
            }
        }
        min = lo;
        max = hi;
        return to;
    }

    @Override
    Statistics<?> pageStatistics() {
        Statistics<?> statistics = Statistics.createStats(type);
        if (min <= max) {
            update(statistics, min);
            update(statistics, max);
        }
        return statistics;
    }

    private void update(Statistics<?> statistics, long value) {
        if (wide) {
            statistics.updateStats(value);
        } else {
            statistics.updateStats((int) value);
        }
    }

    @Override
    void resetPage() {
        min = Long.MAX_VALUE;
        max = Long.MIN_VALUE;
    }
}
