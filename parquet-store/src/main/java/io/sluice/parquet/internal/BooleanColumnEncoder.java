package io.sluice.parquet.internal;

import io.sluice.stream.BooleanVector;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnVector;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;

/** BOOLEAN values, PLAIN: one bit each, least significant bit first, the last byte zero-padded. */
final class BooleanColumnEncoder extends ColumnEncoder {

    private int pending;
    private int pendingBits;
    private boolean sawFalse;
    private boolean sawTrue;

    BooleanColumnEncoder(Column column, ColumnDescriptor descriptor, ParquetProperties properties, BytesInputCompressor compressor,
                         PageBufferPool buffers) {
        super(column, descriptor, properties, compressor, buffers);
    }

    @Override
    int encode(ColumnVector vector, int from, int to) {
        BooleanVector column = (BooleanVector) vector;
        for (int row = from; row < to; row++) {
            if (!column.isNull(row)) {
                append(column.get(row));
            }
        }
        return to;
    }

    private void append(boolean value) {
        if (value) {
            pending |= 1 << pendingBits;
            sawTrue = true;
        } else {
            sawFalse = true;
        }
        if (++pendingBits == Byte.SIZE) {
            values.putByte(pending);
            pending = 0;
            pendingBits = 0;
        }
    }

    @Override
    BytesInput pageValues() {
        if (pendingBits > 0) {
            values.putByte(pending); // the last, partial byte; resetPage clears it
        }
        return values.view();
    }

    @Override
    Statistics<?> pageStatistics() {
        Statistics<?> statistics = Statistics.createStats(type);
        if (sawFalse) {
            statistics.updateStats(false);
        }
        if (sawTrue) {
            statistics.updateStats(true);
        }
        return statistics;
    }

    @Override
    void resetPage() {
        pending = 0;
        pendingBits = 0;
        sawFalse = false;
        sawTrue = false;
    }
}
