package io.sluice.stream.raw;

import io.sluice.stream.BinaryVector;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.LongVector;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One field of a decoded RAW record and its bytes on the wire. A record is the requested fields
 * in request order, each written as below (all integers big-endian, unsigned):
 *
 * <pre>
 *  ts      u64                      8 bytes, epoch milliseconds
 *  offset  u64                      8 bytes
 *  topic   u16 length | UTF-8 bytes 2 + length bytes (MQTT topics are at most 65535 bytes)
 *  data    u32 length | payload     4 + length bytes, the payload exactly as published
 * </pre>
 *
 * So the default {@code ts,data} record is {@code ts u64 | len u32 | data} (see
 * {@link RawRecordDescriptor}) and {@code ts,offset,topic,data} is
 * {@code ts u64 | offset u64 | topiclen u16 | topic | len u32 | data}.
 */
public enum RawField {
    /** The capture timestamp. */
    TS("ts"),
    /** The capture offset. */
    OFFSET("offset"),
    /** The MQTT topic the message was published to. */
    TOPIC("topic"),
    /** The payload. */
    DATA("data");

    /** Width of the ts and offset fields. */
    public static final int KEY_LENGTH = Long.BYTES;
    /** Width of the topic's length prefix. */
    public static final int TOPIC_LENGTH_PREFIX = Short.BYTES;
    /** Width of the data's length prefix. */
    public static final int DATA_LENGTH_PREFIX = Integer.BYTES;

    private final String column;

    RawField(String column) {
        this.column = column;
    }

    /** The stored column and the name used in query commands. */
    public String column() {
        return column;
    }

    /** The field for a column name, or null. */
    public static RawField of(String name) {
        for (RawField field : values()) {
            if (field.column.equals(name)) {
                return field;
            }
        }
        return null;
    }

    /** This field's stored column in a batch of rows, checked for its type. */
    ColumnVector vector(ColumnBatch rows) {
        ColumnVector vector = this == TS || this == OFFSET ? rows.longs(column)
                : this == TOPIC ? rows.strings(column) : rows.binaries(column);
        if (vector == null) {
            throw new IllegalArgumentException("RAW rows lack column '" + column + "': " + rows);
        }
        return vector;
    }

    /** Bytes this field takes for a row; {@code topicBytes} is the row's UTF-8 topic (for TOPIC). */
    int length(ColumnVector vector, int row, byte[] topicBytes) {
        switch (this) {
            case TS:
            case OFFSET:
                return KEY_LENGTH;
            case TOPIC:
                return TOPIC_LENGTH_PREFIX + topicBytes.length;
            case DATA:
                return DATA_LENGTH_PREFIX + ((BinaryVector) vector).get(row).length;
            default:
                throw new IllegalStateException(name());
        }
    }

    /** Writes this field of a row at the buffer's position. */
    void write(ByteBuffer out, ColumnVector vector, int row, byte[] topicBytes) {
        switch (this) {
            case TS:
            case OFFSET:
                out.putLong(((LongVector) vector).get(row));
                break;
            case TOPIC:
                out.putShort((short) topicBytes.length).put(topicBytes);
                break;
            case DATA: {
                byte[] data = ((BinaryVector) vector).get(row);
                out.putInt(data.length).put(data);
                break;
            }
            default:
                throw new IllegalStateException(name());
        }
    }

    /** The UTF-8 bytes of a topic, refusing one longer than its u16 length prefix can say. */
    static byte[] topicBytes(String topic) {
        byte[] bytes = topic.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 0xFFFF) {
            throw new IllegalArgumentException("topic of " + bytes.length + " UTF-8 bytes does not fit a u16 length");
        }
        return bytes;
    }
}
