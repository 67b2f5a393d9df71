package io.sluice.examples.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.sluice.stream.BooleanVector;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.DoubleVector;
import io.sluice.stream.LongVector;
import io.sluice.stream.StringVector;
import java.io.IOException;
import java.util.Arrays;

/**
 * The values of one field for the rows of one batch being encoded, in a primitive array with a
 * null mask (every row starts null). One per field per encoding; one thread.
 */
abstract class FieldColumn {

    final boolean[] nulls;

    FieldColumn(int rows) {
        nulls = new boolean[rows];
        Arrays.fill(nulls, true);
    }

    /** A column for the field's type. */
    static FieldColumn of(FieldType type, int rows) {
        switch (type) {
            case DOUBLE:
                return new Doubles(rows);
            case LONG:
                return new Longs(rows);
            case STRING:
                return new Strings(rows);
            case BOOLEAN:
                return new Booleans(rows);
            default:
                throw new IllegalStateException("unknown field type " + type);
        }
    }

    /**
     * Takes the value the parser is at for a row: JSON null leaves the row null.
     *
     * @return false when the value has the wrong type (the row stays null; the parser is left at
     *         the value's last token)
     */
    final boolean read(JsonParser parser, int row) throws IOException {
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            nulls[row] = true;
            return true;
        }
        boolean ok = take(parser, row);
        nulls[row] = !ok;
        if (!ok) {
            parser.skipChildren();
        }
        return ok;
    }

    /** Makes a row null again (its payload turned out not to be JSON after all). */
    final void clear(int row) {
        nulls[row] = true;
    }

    /** Stores the current value if it has this column's type. */
    abstract boolean take(JsonParser parser, int row) throws IOException;

    /** The column's vector for the batch. */
    abstract ColumnVector vector();

    private static final class Doubles extends FieldColumn {
        private final double[] values;

        Doubles(int rows) {
            super(rows);
            values = new double[rows];
        }

        @Override
        boolean take(JsonParser parser, int row) throws IOException {
            JsonToken token = parser.currentToken();
            if (token != JsonToken.VALUE_NUMBER_INT && token != JsonToken.VALUE_NUMBER_FLOAT) {
                return false;
            }
            values[row] = parser.getDoubleValue();
            return true;
        }

        @Override
        ColumnVector vector() {
            return DoubleVector.nullable(values, nulls);
        }
    }

    private static final class Longs extends FieldColumn {
        private final long[] values;

        Longs(int rows) {
            super(rows);
            values = new long[rows];
        }

        @Override
        boolean take(JsonParser parser, int row) throws IOException {
            if (parser.currentToken() != JsonToken.VALUE_NUMBER_INT || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                return false;
            }
            values[row] = parser.getLongValue();
            return true;
        }

        @Override
        ColumnVector vector() {
            return LongVector.nullable(values, nulls);
        }
    }

    private static final class Strings extends FieldColumn {
        private final String[] values;

        Strings(int rows) {
            super(rows);
            values = new String[rows];
        }

        @Override
        boolean take(JsonParser parser, int row) throws IOException {
            if (parser.currentToken() != JsonToken.VALUE_STRING) {
                return false;
            }
            values[row] = parser.getText();
            return true;
        }

        @Override
        ColumnVector vector() {
            // A StringVector's nulls are its null elements: clear those the mask says are null.
            for (int row = 0; row < values.length; row++) {
                if (nulls[row]) {
                    values[row] = null;
                }
            }
            return StringVector.of(values);
        }
    }

    private static final class Booleans extends FieldColumn {
        private final boolean[] values;

        Booleans(int rows) {
            super(rows);
            values = new boolean[rows];
        }

        @Override
        boolean take(JsonParser parser, int row) throws IOException {
            JsonToken token = parser.currentToken();
            if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE) {
                return false;
            }
            values[row] = token == JsonToken.VALUE_TRUE;
            return true;
        }

        @Override
        ColumnVector vector() {
            return BooleanVector.nullable(values, nulls);
        }
    }
}
