package io.sluice.stream.spi;

import static io.sluice.stream.spi.SpiFrameDescriptor.FLAGS_OFFSET;

import io.sluice.stream.BinaryVector;
import io.sluice.stream.CaptureBatch;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnType;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One encoding of a capture batch into SPI columns (see {@link SpiCodec} for the columns). Two
 * passes over the payloads: the first checks each one and collects the typeids present, so the
 * second can fill one array per signal column with exact sizes and no map. The encoded rows are
 * numbered from 0 whatever the capture window ({@link CaptureBatch#fromZero()}), so a query's
 * slice of a large batch costs only its own rows.
 *
 * <p>Allocation is per batch (the column arrays, two 8 KiB typeid bit sets) plus one array per
 * signal value, which a column of byte strings needs; nothing else per message. One use, one
 * thread.
 */
final class SpiEncoder {

    private static final int TYPEIDS = 1 << 16;

    /** The capture batch numbered from 0, so that row i of it is row i of every column. */
    private final CaptureBatch batch;
    private final int rows;
    /** Typeids present in some valid payload of the batch. */
    private final long[] seen = new long[TYPEIDS / Long.SIZE];
    /** Typeids met so far in the payload being scanned; cleared after each payload. */
    private final long[] inPayload = new long[TYPEIDS / Long.SIZE];
    /** Row i holds payload i when it is not valid SPI; null until the first such payload. */
    private byte[][] raw;
    private int malformed;
    private int firstMalformedRow = -1;
    private long repeated;
    private int firstRepeatedRow = -1;

    SpiEncoder(CaptureBatch batch) {
        this.batch = batch.fromZero();
        this.rows = batch.size();
    }

    /** The batch as columns: ts, offset, topic, one column per signal in ascending typeid, raw if needed. */
    ColumnBatch encode() {
        for (int i = 0; i < rows; i++) {
            scan(i, batch.payload(i));
        }
        int[] typeids = typeidsSeen();
        byte[][][] values = new byte[typeids.length][][];
        for (int c = 0; c < typeids.length; c++) {
            values[c] = new byte[rows][];
        }
        for (int i = 0; i < rows; i++) {
            if (raw == null || raw[i] == null) {
                fill(i, batch.payload(i), typeids, values);
            }
        }
        return columns(typeids, values);
    }

    /** How many payloads were not valid SPI. */
    int malformed() {
        return malformed;
    }

    /** The row, numbered from the window's start, of the first payload that was not valid SPI, or -1. */
    int firstMalformedRow() {
        return firstMalformedRow;
    }

    /** How many frames a later frame of the same typeid in the same payload replaced. */
    long repeated() {
        return repeated;
    }

    /** The row, numbered from the window's start, of the first payload with a repeated typeid, or -1. */
    int firstRepeatedRow() {
        return firstRepeatedRow;
    }

    /** Checks payload i and notes its typeids, or keeps it raw. */
    private void scan(int i, byte[] payload) {
        if (!SpiPayload.isValid(payload)) {
            if (raw == null) {
                raw = new byte[rows][];
                firstMalformedRow = i;
            }
            raw[i] = payload;
            malformed++;
            return;
        }
        long repeatsBefore = repeated;
        for (int at = 0; at < payload.length; at += SpiFrameDescriptor.frameLength(payload, at)) {
            int typeid = SpiFrameDescriptor.typeid(payload, at);
            if (isSet(inPayload, typeid)) {
                repeated++;
            } else {
                set(inPayload, typeid);
                set(seen, typeid);
            }
        }
        for (int at = 0; at < payload.length; at += SpiFrameDescriptor.frameLength(payload, at)) {
            clear(inPayload, SpiFrameDescriptor.typeid(payload, at));
        }
        if (repeated > repeatsBefore && firstRepeatedRow < 0) {
            firstRepeatedRow = i;
        }
    }

    /** Puts each frame of valid payload i into its signal's column: flags and payload; a later frame wins. */
    private static void fill(int i, byte[] payload, int[] typeids, byte[][][] values) {
        for (int at = 0; at < payload.length; ) {
            int end = at + SpiFrameDescriptor.frameLength(payload, at);
            int column = Arrays.binarySearch(typeids, SpiFrameDescriptor.typeid(payload, at));
            values[column][i] = Arrays.copyOfRange(payload, at + FLAGS_OFFSET, end);
            at = end;
        }
    }

    private ColumnBatch columns(int[] typeids, byte[][][] values) {
        List<Column> columns = new ArrayList<>(typeids.length + 4);
        List<ColumnVector> vectors = new ArrayList<>(typeids.length + 4);
        columns.add(Column.TS);
        columns.add(Column.OFFSET);
        columns.add(SpiCodec.TOPIC);
        vectors.add(batch.tsVector());
        vectors.add(batch.offsetVector());
        vectors.add(batch.topicVector());
        for (int c = 0; c < typeids.length; c++) {
            columns.add(Column.nullable(SignalColumn.name(typeids[c]), ColumnType.BINARY));
            vectors.add(BinaryVector.of(values[c]));
        }
        if (raw != null) {
            columns.add(SpiCodec.RAW);
            vectors.add(BinaryVector.of(raw));
        }
        return ColumnBatch.of(Schema.of(columns), vectors, rows);
    }

    private int[] typeidsSeen() {
        int count = 0;
        for (long word : seen) {
            count += Long.bitCount(word);
        }
        int[] typeids = new int[count];
        int next = 0;
        for (int w = 0; w < seen.length; w++) {
            for (long word = seen[w]; word != 0; word &= word - 1) {
                typeids[next++] = w * Long.SIZE + Long.numberOfTrailingZeros(word);
            }
        }
        return typeids;
    }

    private static boolean isSet(long[] bits, int index) {
        return (bits[index >>> 6] & (1L << index)) != 0;
    }

    private static void set(long[] bits, int index) {
        bits[index >>> 6] |= 1L << index;
    }

    private static void clear(long[] bits, int index) {
        bits[index >>> 6] &= ~(1L << index);
    }
}
