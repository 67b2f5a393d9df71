package io.sluice.parquet.internal;

import io.sluice.stream.Column;
import io.sluice.stream.ColumnType;
import io.sluice.stream.Schema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Our column model in Parquet terms: a flat message of primitive fields, REQUIRED or OPTIONAL,
 * INT64 / INT32 / DOUBLE / BOOLEAN / BYTE_ARRAY, and BYTE_ARRAY annotated STRING for text. The
 * key column {@code ts} is written as INT64 annotated {@code TIMESTAMP(MILLIS, isAdjustedToUTC=true)},
 * so DuckDB, pyarrow and Spark show a timestamp; files written before that annotation (plain INT64)
 * read the same, since reading goes by the physical type.
 */
public final class SchemaMapping {

    /** The message name written into files. */
    public static final String MESSAGE_NAME = "sluice";
    private static final LogicalTypeAnnotation TIMESTAMP =
            LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS);

    private SchemaMapping() {
    }

    public static MessageType toParquet(Schema schema) {
        Types.MessageTypeBuilder message = Types.buildMessage();
        for (Column column : schema.columns()) {
            Type.Repetition repetition = column.nullable() ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
            switch (column.type()) {
                case INT64 -> message.primitive(PrimitiveTypeName.INT64, repetition)
                        .as(column.name().equals(Column.TS.name()) ? TIMESTAMP : null).named(column.name());
                case INT32 -> message.primitive(PrimitiveTypeName.INT32, repetition).named(column.name());
                case DOUBLE -> message.primitive(PrimitiveTypeName.DOUBLE, repetition).named(column.name());
                case BOOLEAN -> message.primitive(PrimitiveTypeName.BOOLEAN, repetition).named(column.name());
                case BINARY -> message.primitive(PrimitiveTypeName.BINARY, repetition).named(column.name());
                case STRING -> message.primitive(PrimitiveTypeName.BINARY, repetition)
                        .as(LogicalTypeAnnotation.stringType()).named(column.name());
                default -> throw new IllegalStateException("unknown column type " + column.type());
            }
        }
        return message.named(MESSAGE_NAME);
    }

    /**
     * The columns of a file's schema.
     *
     * @throws IOException naming the file and the field when the file has a nested, repeated or
     *                     unsupported field (it was not written by Sluice)
     */
    public static Schema fromParquet(MessageType type, String file) throws IOException {
        List<Column> columns = new ArrayList<>(type.getFieldCount());
        for (Type field : type.getFields()) {
            if (!field.isPrimitive() || field.isRepetition(Type.Repetition.REPEATED)) {
                throw new IOException(file + ": field '" + field.getName() + "' is nested or repeated; Sluice files are flat");
            }
            PrimitiveType primitive = field.asPrimitiveType();
            boolean nullable = field.isRepetition(Type.Repetition.OPTIONAL);
            columns.add(new Column(field.getName(), typeOf(primitive, file), nullable));
        }
        return Schema.of(columns);
    }

    private static ColumnType typeOf(PrimitiveType primitive, String file) throws IOException {
        switch (primitive.getPrimitiveTypeName()) {
            case INT64:
                return ColumnType.INT64;
            case INT32:
                return ColumnType.INT32;
            case DOUBLE:
                return ColumnType.DOUBLE;
            case BOOLEAN:
                return ColumnType.BOOLEAN;
            case BINARY:
                return primitive.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                        ? ColumnType.STRING : ColumnType.BINARY;
            default:
                throw new IOException(file + ": field '" + primitive.getName() + "' has unsupported type " + primitive.getPrimitiveTypeName());
        }
    }
}
