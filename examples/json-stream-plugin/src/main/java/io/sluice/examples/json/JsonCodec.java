package io.sluice.examples.json;

import com.fasterxml.jackson.core.JsonFactory;
import io.sluice.logging.RateLimitedLog;
import io.sluice.stream.CaptureBatch;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnType;
import io.sluice.stream.CommandException;
import io.sluice.stream.CommandParser;
import io.sluice.stream.DecodeSink;
import io.sluice.stream.PluginCounter;
import io.sluice.stream.QueryCommand;
import io.sluice.stream.Schema;
import io.sluice.stream.StreamCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The JSON plugin's codec for one exchange: JSON telemetry payloads as typed columns for the
 * fields its settings name ({@link JsonSettings}).
 *
 * <p><b>Stored columns</b>, the same in every batch, in this order:
 *
 * <pre>
 *  column        type                   content
 *  ts            INT64                  capture timestamp, epoch ms
 *  offset        INT64                  capture offset
 *  topic         STRING                 the MQTT topic the message was published to
 *  &lt;field&gt; ...   by type, nullable      one per configured field, in configured order, named by its
 *                                       path with '.' as '_'; null when the payload lacks the field,
 *                                       has it null or of the wrong type, or is not JSON
 *  raw           BINARY, nullable       the payload as published, when any field was missing or of
 *                                       the wrong type or the payload was not one JSON object; else null
 * </pre>
 *
 * Nothing accepted is lost: a payload either gave every field (JSON {@code null} counts as given)
 * or is in {@code raw}, counted by {@link JsonCounter}. {@link JsonExtractor} says exactly what
 * counts as missing and wrong.
 *
 * <p><b>Commands.</b> {@code sync-<start>-<end>} or {@code async-<start>-<end>}, optionally
 * followed by {@code -<columns>}: a comma-separated list of field columns, {@code offset},
 * {@code topic} and {@code raw}, in any order, no repeats. Without a list: every field in
 * configured order, then {@code raw}.
 *
 * <p><b>Decoded records</b>: one per captured message in the range, {@code ts u64} then, per
 * selected column, a presence byte and the value, as {@link JsonRecordDescriptor} lays out.
 *
 * <p>Thread-safe: immutable but for the atomic counters, which count only in the write of a
 * batch ({@link CaptureBatch#isWrite()}).
 */
public final class JsonCodec implements StreamCodec {

    private static final Logger LOG = LoggerFactory.getLogger(JsonCodec.class);
    private static final int PREVIEW_CHARS = 120;

    /** The topic column. */
    public static final Column TOPIC = Column.required("topic", ColumnType.STRING);
    /** The column of payloads kept raw. */
    public static final Column RAW = Column.nullable("raw", ColumnType.BINARY);

    private final String exchange;
    private final List<JsonField> fields;
    private final Schema schema;
    private final JsonExtractor extractor;
    private final List<String> defaultColumns;
    private final List<String> selectable;
    private final AtomicLongArray counts = new AtomicLongArray(JsonCounter.values().length);
    private final RateLimitedLog warnings;

    JsonCodec(String exchange, List<JsonField> fields) {
        this.exchange = exchange;
        this.fields = List.copyOf(fields);
        List<Column> columns = new ArrayList<>(List.of(Column.TS, Column.OFFSET, TOPIC));
        List<String> byDefault = new ArrayList<>();
        for (JsonField field : fields) {
            columns.add(Column.nullable(field.column(), field.type().columnType()));
            byDefault.add(field.column());
        }
        columns.add(RAW);
        byDefault.add(RAW.name());
        this.schema = Schema.of(columns);
        this.defaultColumns = List.copyOf(byDefault);
        List<String> all = new ArrayList<>(byDefault);
        all.add(Column.OFFSET.name());
        all.add(TOPIC.name());
        this.selectable = List.copyOf(all);
        // Built here so that a plugin jar missing its parser fails at start-up, not on the writer thread.
        this.extractor = new JsonExtractor(new JsonFactory(), FieldTree.of(fields));
        this.warnings = RateLimitedLog.onePer(LOG, "exchange " + exchange + ": JSON payloads kept raw", Duration.ofMinutes(1));
    }

    /** The configured fields, in order. */
    public List<JsonField> fields() {
        return fields;
    }

    /** The stored columns, the same for every batch. */
    public Schema schema() {
        return schema;
    }

    JsonExtractor extractor() {
        return extractor;
    }

    @Override
    public ColumnBatch encode(CaptureBatch batch) {
        JsonEncoder encoder = new JsonEncoder(this, batch);
        ColumnBatch encoded = encoder.encode();
        if (batch.isWrite() && encoder.kept() > 0) {
            count(batch, encoder);
        }
        return encoded;
    }

    private void count(CaptureBatch batch, JsonEncoder encoder) {
        for (JsonCounter counter : JsonCounter.values()) {
            counts.addAndGet(counter.ordinal(), encoder.count(counter));
        }
        if (warnings.admit(encoder.kept())) { // the line is built only when it is written
            int row = batch.start() + encoder.firstRawRow();
            warnings.write(Level.WARN, "offset " + batch.offset(row) + " (topic '" + batch.topic(row) + "'): "
                    + describe(batch.payload(row)), null);
        }
    }

    /** Why a payload was kept raw, and its beginning, for the log. */
    private String describe(byte[] payload) {
        FieldColumn[] columns = new FieldColumn[fields.size()];
        for (JsonField field : fields) {
            columns[field.index()] = FieldColumn.of(field.type(), 1);
        }
        boolean[] found = new boolean[fields.size()];
        int problems = extractor.extract(payload, columns, 0, found);
        List<String> why = new ArrayList<>();
        if (problems == JsonExtractor.NOT_JSON) {
            why.add("not one JSON object");
        }
        if ((problems & JsonExtractor.MISSING) != 0) {
            List<String> missing = new ArrayList<>();
            fields.stream().filter(f -> !found[f.index()]).forEach(f -> missing.add(f.path()));
            why.add("missing " + String.join(", ", missing));
        }
        if ((problems & JsonExtractor.WRONG_TYPE) != 0) {
            why.add("a field of the wrong type");
        }
        return String.join("; ", why) + " in " + payload.length + " bytes: " + preview(payload);
    }

    private static String preview(byte[] payload) {
        String text = new String(payload, StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(text.length(), PREVIEW_CHARS); i++) {
            char c = text.charAt(i);
            sb.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return text.length() > PREVIEW_CHARS ? sb.append("...").toString() : sb.toString();
    }

    @Override
    public QueryCommand parseCommand(String command) throws CommandException {
        CommandParser.Parts parts = CommandParser.parse(command);
        List<String> columns = parts.columns() == null ? defaultColumns : columns(parts.columns());
        return new QueryCommand(parts.sync(), parts.start(), parts.end(), columns, columns);
    }

    private List<String> columns(String text) throws CommandException {
        List<String> columns = new ArrayList<>();
        for (String name : text.split(",", -1)) {
            if (!selectable.contains(name)) {
                throw new CommandException(CommandException.BAD_COLUMNS, "unknown column '" + name + "'; this exchange has "
                        + String.join(", ", selectable));
            }
            if (columns.contains(name)) {
                throw new CommandException(CommandException.BAD_COLUMNS, "column '" + name + "' named twice");
            }
            columns.add(name);
        }
        return columns;
    }

    @Override
    public void decode(ColumnBatch rows, QueryCommand command, DecodeSink sink) {
        JsonDecoder.decode(rows, command.columns(), sink);
    }

    @Override
    public Map<PluginCounter, Long> counters() {
        Map<PluginCounter, Long> values = new LinkedHashMap<>();
        for (JsonCounter counter : JsonCounter.values()) {
            values.put(counter, counts.get(counter.ordinal()));
        }
        return Collections.unmodifiableMap(values);
    }

    /** One counter's value now. */
    public long counter(JsonCounter counter) {
        return counts.get(counter.ordinal());
    }

    @Override
    public String toString() {
        return "JSON codec of exchange " + exchange + " with fields " + fields.stream().map(f -> f.path() + ":" + f.type().label()).toList();
    }
}
