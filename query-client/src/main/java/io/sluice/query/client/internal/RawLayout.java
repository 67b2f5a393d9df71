package io.sluice.query.client.internal;

import io.sluice.query.client.QueryException;
import io.sluice.query.client.Record;
import io.sluice.stream.CommandException;
import io.sluice.stream.CommandParser;
import io.sluice.stream.raw.RawField;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The byte layout of RAW records for one command's column list (default {@code ts,data}): the
 * fields in request order, {@code ts} and {@code offset} u64, {@code topic} u16 length + UTF-8,
 * {@code data} u32 length + bytes, all big-endian ({@link RawField}). Reads records out of a
 * data frame, checking every length against the frame.
 */
public final class RawLayout {

    private final List<RawField> fields;

    private RawLayout(List<RawField> fields) {
        this.fields = List.copyOf(fields);
    }

    /**
     * The layout a command asks for. A command that does not parse gets the default layout (the
     * server will refuse it anyway, and the caller should see the server's ERR).
     *
     * @throws IllegalArgumentException when the column list names something RAW does not have
     */
    public static RawLayout of(String command) {
        String columns;
        try {
            columns = CommandParser.parse(command).columns();
        } catch (CommandException e) {
            columns = null;
        }
        List<RawField> fields = new ArrayList<>();
        if (columns == null) {
            fields.add(RawField.TS);
            fields.add(RawField.DATA);
        } else {
            for (String name : columns.split(",", -1)) {
                RawField field = RawField.of(name);
                if (field == null) {
                    throw new IllegalArgumentException("'" + name + "' in '" + command + "' is not a RAW column (ts, offset, topic, data)");
                }
                fields.add(field);
            }
        }
        return new RawLayout(fields);
    }

    public List<RawField> fields() {
        return fields;
    }

    /**
     * Reads the record at the buffer's position and moves past it.
     *
     * @param frameIndex the frame's number in the reply, for error messages
     */
    public Record read(ByteBuffer frame, long frameIndex) {
        int start = frame.position();
        long ts = -1;
        long offset = -1;
        String topic = null;
        byte[] data = null;
        for (RawField field : fields) {
            switch (field) {
                case TS -> ts = need(frame, RawField.KEY_LENGTH, field, start, frameIndex).getLong();
                case OFFSET -> offset = need(frame, RawField.KEY_LENGTH, field, start, frameIndex).getLong();
                case TOPIC -> {
                    int length = Short.toUnsignedInt(need(frame, RawField.TOPIC_LENGTH_PREFIX, field, start, frameIndex).getShort());
                    need(frame, length, field, start, frameIndex);
                    byte[] bytes = new byte[length];
                    frame.get(bytes);
                    topic = new String(bytes, StandardCharsets.UTF_8);
                }
                case DATA -> {
                    long length = Integer.toUnsignedLong(need(frame, RawField.DATA_LENGTH_PREFIX, field, start, frameIndex).getInt());
                    need(frame, length, field, start, frameIndex);
                    data = new byte[(int) length];
                    frame.get(data);
                }
                default -> throw new IllegalStateException(field.name());
            }
        }
        return new RawRecord(ts, offset, topic, data);
    }

    private static ByteBuffer need(ByteBuffer frame, long bytes, RawField field, int recordStart, long frameIndex) {
        if (frame.remaining() < bytes) {
            throw new QueryException("malformed RAW reply: frame " + frameIndex + " ends inside the " + field.column()
                    + " field of the record at byte " + recordStart + " (" + bytes + " bytes needed, " + frame.remaining() + " left)");
        }
        return frame;
    }
}
