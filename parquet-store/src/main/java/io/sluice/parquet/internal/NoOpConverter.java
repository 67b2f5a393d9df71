package io.sluice.parquet.internal;

import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;

/**
 * The converter Parquet's column read store insists on. We read values straight from
 * {@link org.apache.parquet.column.ColumnReader}s, so nothing is ever pushed into it.
 */
public final class NoOpConverter extends GroupConverter {

    private static final PrimitiveConverter PRIMITIVE = new PrimitiveConverter() {
    };

    @Override
    public Converter getConverter(int fieldIndex) {
        return PRIMITIVE;
    }

    @Override
    public void start() {
    }

    @Override
    public void end() {
    }
}
