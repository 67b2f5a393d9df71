package io.sluice.parquet.internal;

import io.sluice.stream.Column;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.DoubleVector;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;

/**
 * DOUBLE values, PLAIN (IEEE 754, little-endian). Every value goes through parquet's statistics,
 * which own the NaN and signed-zero rules for min and max.
 */
final class DoubleColumnEncoder extends ColumnEncoder {

    private Statistics<?> statistics;

    DoubleColumnEncoder(Column column, ColumnDescriptor descriptor, ParquetProperties properties, BytesInputCompressor compressor,
                        PageBufferPool buffers) {
        super(column, descriptor, properties, compressor, buffers);
        resetPage();
    }

    @Override
    int encode(ColumnVector vector, int from, int to) {
        DoubleVector column = (DoubleVector) vector;
        for (int row = from; row < to; row++) {
            if (!column.isNull(row)) {
                double value = column.get(row);
                values.putLong(Double.doubleToRawLongBits(value));
                statistics.updateStats(value);
            }
        }
        return to;
    }

    @Override
    Statistics<?> pageStatistics() {
        return statistics;
    }

    @Override
    void resetPage() {
        statistics = Statistics.createStats(type);
    }
}
