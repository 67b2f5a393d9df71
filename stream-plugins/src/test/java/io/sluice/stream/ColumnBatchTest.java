package io.sluice.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ColumnBatchTest {

    private static final Schema SCHEMA = Schema.of(Column.TS, Column.nullable("v", ColumnType.DOUBLE));

    @Test
    void windowSliceAndProjectShareVectors() {
        long[] ts = {1, 2, 3, 4};
        DoubleVector v = DoubleVector.nullable(new double[] {1.5, 0, 2.5, 3.5}, new boolean[] {false, true, false, false});
        ColumnBatch batch = new ColumnBatch(SCHEMA, List.of(LongVector.of(ts), v), 1, 4);
        assertEquals(3, batch.rows());
        ColumnBatch slice = batch.slice(2, 4);
        assertEquals(2, slice.rows());
        assertEquals(3, slice.longs("ts").get(slice.start()));
        ColumnBatch projected = batch.project(List.of("v", "missing"));
        assertEquals(List.of("v"), projected.schema().columns().stream().map(Column::name).toList());
        assertSame(v, projected.vector("v"));
        assertNull(projected.vector("ts"));
        assertTrue(batch.vector("v").isNull(1));
    }

    @Test
    void mismatchedVectorsAreRefusedWithTheColumnName() {
        IllegalArgumentException type = assertThrows(IllegalArgumentException.class,
                () -> ColumnBatch.of(SCHEMA, List.of(LongVector.of(new long[1]), LongVector.of(new long[1])), 1));
        assertTrue(type.getMessage().contains("'v'"), type.getMessage());
        IllegalArgumentException nulls = assertThrows(IllegalArgumentException.class,
                () -> ColumnBatch.of(Schema.of(Column.TS), List.of(LongVector.nullable(new long[1], new boolean[] {true})), 1));
        assertTrue(nulls.getMessage().contains("required column 'ts'"), nulls.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> ColumnBatch.of(Schema.of(Column.TS), List.of(LongVector.of(new long[1])), 2));
    }

    @Test
    void unionAddsMissingColumnsAndWidensNullability() {
        Schema a = Schema.of(Column.TS, Column.required("x", ColumnType.BINARY));
        Schema b = Schema.of(Column.TS, Column.nullable("x", ColumnType.BINARY), Column.nullable("y", ColumnType.INT32));
        Schema union = a.union(b);
        assertEquals(List.of("ts", "x", "y"), union.columns().stream().map(Column::name).toList());
        assertTrue(union.column("x").nullable());
        Schema clash = Schema.of(Column.required("x", ColumnType.STRING));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.union(clash));
        assertTrue(e.getMessage().contains("'x'"), e.getMessage());
    }

    @Test
    void badColumnNamesAndDuplicatesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Column.required("a b", ColumnType.INT32));
        assertThrows(IllegalArgumentException.class, () -> Column.required("", ColumnType.INT32));
        assertThrows(IllegalArgumentException.class, () -> Schema.of(Column.TS, Column.TS));
    }

    @Test
    void estimatedBytesCountsValuesOfTheWindow() {
        Schema schema = Schema.of(Column.TS, Column.required("data", ColumnType.BINARY));
        ColumnBatch batch = new ColumnBatch(schema, List.of(LongVector.of(new long[3]),
                BinaryVector.of(new byte[][] {new byte[100], new byte[10], new byte[1]})), 1, 3);
        assertEquals(2 * 8 + 2 * 4 + 11, batch.estimatedBytes());
    }
}
