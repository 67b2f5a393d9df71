package io.sluice.stream.spi;

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
import io.sluice.stream.StreamCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * SPI's codec for one exchange.
 *
 * <p><b>Stored columns.</b> A payload is a sequence of signal frames ({@link SpiFrameDescriptor}).
 *
 * <pre>
 *  column    type                  content
 *  ts        INT64                 capture timestamp, epoch ms
 *  offset    INT64                 capture offset
 *  topic     STRING                the MQTT topic the message was published to
 *  0a2b ...  BINARY, nullable      one column per signal, named by its typeid as four lowercase hex
 *                                  digits, in ascending typeid: the frame without magic and typeid,
 *                                  i.e. flags u8 | payload[len]; null where the message lacks the signal
 *  raw       BINARY, nullable      the whole payload of a message that is not valid SPI; absent from
 *                                  a batch without such a message
 * </pre>
 *
 * A signal's value keeps the flags byte, so the update bit (and the length) come back exactly;
 * in DuckDB {@code "0a2b"[2:]} is the signal's payload and
 * {@code get_bit("0a2b"::BIT, 0)} its update bit. A typeid repeated within one payload keeps its
 * last frame ({@link SpiCounter#REPEATED_SIGNALS}). A payload that is not valid SPI (a frame not
 * starting with 0x55, a frame cut short, bytes left over, or more than 65535 bytes, which could
 * not come back in one decoded row) is kept whole in {@code raw}, has no signal values, and is
 * counted ({@link SpiCounter#MALFORMED_PAYLOADS}); an empty payload is valid and holds no signal.
 * Columns vary from batch to batch with the signals seen; a file holds the union (DuckDB:
 * {@code read_parquet('dir/*.parquet', union_by_name = true)}).
 *
 * <p><b>Commands.</b> {@code sync-<start>-<end>} or {@code async-<start>-<end>}, optionally
 * followed by {@code -<signals>} or {@code -raw}:
 * <ul>
 *   <li>no list: every signal;</li>
 *   <li>{@code <signals>}: concatenated 4-hex-digit typeids, e.g. {@code 00010a2b} for
 *       {@code 0001} and {@code 0a2b}, any order and case, no repeats;</li>
 *   <li>{@code raw}: the payloads kept raw, instead of signals.</li>
 * </ul>
 *
 * <p><b>Decoded records.</b> For signals, one row per captured message holding at least one
 * requested signal, laid out as {@link SpiRowDescriptor} shows:
 * {@code ts u64 | rowlen u16 | { 0x55 | typeid u16 | flags u8 | payload }...}, the requested
 * signals present in that message in ascending typeid, bytes exactly as published. Messages
 * without any requested signal (including those kept raw) give no row. For {@code raw}, one
 * record per message kept raw, laid out as RAW's default record:
 * {@code ts u64 | len u32 | payload} ({@link io.sluice.stream.raw.RawRecordDescriptor}).
 *
 * <p>Thread-safe: encoding keeps its state in a {@link SpiEncoder} per call; the counters are
 * atomic and counted only in the write of a batch ({@link CaptureBatch#isWrite()}).
 */
public final class SpiCodec implements StreamCodec {

    private static final Logger LOG = LoggerFactory.getLogger(SpiCodec.class);
    /** A payload problem is logged with its detail once per this; the counters have the totals. */
    private static final Duration WARNING_INTERVAL = Duration.ofMinutes(1);

    /** The column of the topic. */
    public static final Column TOPIC = Column.required("topic", ColumnType.STRING);
    /** The column of payloads that are not valid SPI. */
    public static final Column RAW = Column.nullable("raw", ColumnType.BINARY);
    /** The command's column list that asks for the payloads kept raw. */
    public static final String RAW_SELECTION = RAW.name();

    private final String exchange;
    private final AtomicLongArray counts = new AtomicLongArray(SpiCounter.values().length);
    private final RateLimitedLog malformedWarnings;
    private final RateLimitedLog repeatedWarnings;

    SpiCodec(String exchange) {
        this.exchange = exchange;
        this.malformedWarnings = RateLimitedLog.onePer(LOG, "exchange " + exchange + ": malformed SPI payloads, kept raw",
                WARNING_INTERVAL);
        this.repeatedWarnings = RateLimitedLog.onePer(LOG,
                "exchange " + exchange + ": SPI payloads repeating a typeid, last frame kept", WARNING_INTERVAL);
    }

    @Override
    public ColumnBatch encode(CaptureBatch batch) {
        SpiEncoder encoder = new SpiEncoder(batch);
        ColumnBatch encoded = encoder.encode();
        if (batch.isWrite()) {
            count(batch, encoder);
        }
        return encoded;
    }

    private void count(CaptureBatch batch, SpiEncoder encoder) {
        if (encoder.malformed() > 0) {
            counts.addAndGet(SpiCounter.MALFORMED_PAYLOADS.ordinal(), encoder.malformed());
            if (malformedWarnings.admit(encoder.malformed())) {
                int row = batch.start() + encoder.firstMalformedRow();
                malformedWarnings.write(Level.WARN, where(batch, row) + ": " + SpiPayload.describeDefect(batch.payload(row)),
                        null);
            }
        }
        if (encoder.repeated() > 0) {
            counts.addAndGet(SpiCounter.REPEATED_SIGNALS.ordinal(), encoder.repeated());
            if (repeatedWarnings.admit(encoder.repeated())) {
                int row = batch.start() + encoder.firstRepeatedRow();
                repeatedWarnings.write(Level.WARN,
                        where(batch, row) + ": typeid " + firstRepeat(batch.payload(row)) + " appears more than once", null);
            }
        }
    }

    private static String where(CaptureBatch batch, int row) {
        return "offset " + batch.offset(row) + " (topic '" + batch.topic(row) + "', " + batch.payload(row).length + " bytes)";
    }

    private static String firstRepeat(byte[] payload) {
        Set<Integer> met = new HashSet<>();
        for (int at = 0; at < payload.length; at += SpiFrameDescriptor.frameLength(payload, at)) {
            int typeid = SpiFrameDescriptor.typeid(payload, at);
            if (!met.add(typeid)) {
                return SignalColumn.name(typeid);
            }
        }
        return "?";
    }

    @Override
    public QueryCommand parseCommand(String command) throws CommandException {
        CommandParser.Parts parts = CommandParser.parse(command);
        List<String> columns;
        if (parts.columns() == null) {
            columns = List.of();
        } else if (parts.columns().equals(RAW_SELECTION)) {
            columns = List.of(RAW_SELECTION);
        } else {
            columns = signals(parts.columns());
        }
        return new QueryCommand(parts.sync(), parts.start(), parts.end(), columns, columns);
    }

    /** The signal names of a concatenation of 4-hex-digit typeids, lower case, ascending. */
    private static List<String> signals(String text) throws CommandException {
        if (text.length() % SignalColumn.NAME_LENGTH != 0) {
            throw new CommandException(CommandException.BAD_COLUMNS, "signal list '" + text + "' has " + text.length()
                    + " characters; expected 4 hex digits per typeid (e.g. 00010a2b) or 'raw'");
        }
        TreeSet<String> names = new TreeSet<>();
        for (int at = 0; at < text.length(); at += SignalColumn.NAME_LENGTH) {
            int typeid = SignalColumn.hex(text, at, true);
            String written = text.substring(at, at + SignalColumn.NAME_LENGTH);
            if (typeid < 0) {
                throw new CommandException(CommandException.BAD_COLUMNS, "typeid '" + written + "' at position " + at
                        + " of the signal list is not 4 hex digits");
            }
            if (!names.add(SignalColumn.name(typeid))) {
                throw new CommandException(CommandException.BAD_COLUMNS, "typeid '" + written + "' named twice");
            }
        }
        return new ArrayList<>(names);
    }

    @Override
    public void decode(ColumnBatch rows, QueryCommand command, DecodeSink sink) {
        if (command.columns().equals(List.of(RAW_SELECTION))) {
            SpiDecoder.decodeRaw(rows, sink);
        } else {
            SpiDecoder.decodeSignals(rows, command.columns(), sink);
        }
    }

    @Override
    public Map<PluginCounter, Long> counters() {
        Map<PluginCounter, Long> values = new LinkedHashMap<>();
        for (SpiCounter counter : SpiCounter.values()) {
            values.put(counter, counts.get(counter.ordinal()));
        }
        return Collections.unmodifiableMap(values);
    }

    /** One counter's value now. */
    public long counter(SpiCounter counter) {
        return counts.get(counter.ordinal());
    }

    @Override
    public String toString() {
        return "SPI codec of exchange " + exchange;
    }
}
