package io.sluice.parquet.internal;

import io.sluice.stream.BinaryVector;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnVector;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;

/**
 * Opaque bytes (payloads), PLAIN: a 4-byte length, then the bytes. No min/max: the extremes of
 * opaque payloads prune nothing, so the chunk gets no column index, as parquet-java does with
 * statistics disabled.
 */
final class BinaryColumnEncoder extends ColumnEncoder {

    private long unencoded;

    BinaryColumnEncoder(Column column, ColumnDescriptor descriptor, ParquetProperties properties, BytesInputCompressor compressor,
                        PageBufferPool buffers) {
        super(column, descriptor, properties, compressor, buffers);
    }

    @Override
    int encode(ColumnVector vector, int from, int to) {
        BinaryVector column = (BinaryVector) vector;
        for (int row = from; row < to; row++) {
            byte[] value = column.get(row);
            if (value != null) {
                values.putLengthPrefixed(value);
                unencoded += value.length;
                if (pageFull()) {
                    return row + 1;
                }
            }
        }
        return to;
    }

    @Override
    Statistics<?> pageStatistics() {
        return Statistics.noopStats(type);
    }

    @Override
    long unencodedBytes() {
        return unencoded;
    }

    @Override
    void resetPage() {
        unencoded = 0;
    }
}
