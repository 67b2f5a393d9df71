package io.sluice.stream.raw;

import io.sluice.stream.CaptureBatch;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnType;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.CommandException;
import io.sluice.stream.CommandParser;
import io.sluice.stream.DecodeSink;
import io.sluice.stream.QueryCommand;
import io.sluice.stream.Schema;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.StringVector;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * RAW's codec. Stored columns: {@code ts} INT64, {@code offset} INT64, {@code topic} STRING,
 * {@code data} BINARY, all required. Encoding copies nothing: the columns are views of the capture
 * batch's arrays. A command may end in {@code -<fields>}, a comma-separated list of
 * {@code ts}, {@code offset}, {@code topic}, {@code data} in any order without repeats (default
 * {@code ts,data}); decoded records hold those fields in that order, laid out as {@link RawField}
 * describes. Stateless, so one instance serves every exchange and thread.
 */
public final class RawCodec implements StreamCodec {

    static final RawCodec INSTANCE = new RawCodec();

    /** The stored columns, in file order. */
    public static final Schema SCHEMA = Schema.of(Column.TS, Column.OFFSET,
            Column.required(RawField.TOPIC.column(), ColumnType.STRING),
            Column.required(RawField.DATA.column(), ColumnType.BINARY));

    /** The fields decoded when a command names none. */
    public static final List<String> DEFAULT_FIELDS = List.of(RawField.TS.column(), RawField.DATA.column());

    private RawCodec() {
    }

    @Override
    public ColumnBatch encode(CaptureBatch batch) {
        return new ColumnBatch(SCHEMA, List.of(batch.tsVector(), batch.offsetVector(), batch.topicVector(), batch.payloadVector()),
                batch.start(), batch.end());
    }

    @Override
    public QueryCommand parseCommand(String command) throws CommandException {
        CommandParser.Parts parts = CommandParser.parse(command);
        List<String> fields = parts.columns() == null ? DEFAULT_FIELDS : fields(parts.columns());
        return new QueryCommand(parts.sync(), parts.start(), parts.end(), fields, fields);
    }

    private static List<String> fields(String text) throws CommandException {
        List<String> fields = new ArrayList<>();
        for (String name : text.split(",", -1)) {
            if (RawField.of(name) == null) {
                throw new CommandException(CommandException.BAD_COLUMNS, "unknown column '" + name
                        + "'; RAW has ts, offset, topic and data");
            }
            if (fields.contains(name)) {
                throw new CommandException(CommandException.BAD_COLUMNS, "column '" + name + "' named twice");
            }
            fields.add(name);
        }
        return fields;
    }

    @Override
    public void decode(ColumnBatch rows, QueryCommand command, DecodeSink sink) {
        int count = command.columns().size();
        RawField[] fields = new RawField[count];
        ColumnVector[] vectors = new ColumnVector[count];
        StringVector topics = null;
        for (int i = 0; i < count; i++) {
            fields[i] = RawField.of(command.columns().get(i));
            vectors[i] = fields[i].vector(rows);
            if (fields[i] == RawField.TOPIC) {
                topics = (StringVector) vectors[i];
            }
        }
        String lastTopic = null;
        byte[] topicBytes = null;
        for (int row = rows.start(); row < rows.end(); row++) {
            if (topics != null && !topics.get(row).equals(lastTopic)) {
                lastTopic = topics.get(row);
                topicBytes = RawField.topicBytes(lastTopic);
            }
            int length = 0;
            for (int i = 0; i < count; i++) {
                length += fields[i].length(vectors[i], row, topicBytes);
            }
            ByteBuffer out = sink.claim(length);
            for (int i = 0; i < count; i++) {
                fields[i].write(out, vectors[i], row, topicBytes);
            }
        }
    }
}
