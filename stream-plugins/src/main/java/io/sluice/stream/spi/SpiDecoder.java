package io.sluice.stream.spi;

import io.sluice.stream.BinaryVector;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.DecodeSink;
import io.sluice.stream.LongVector;
import io.sluice.stream.raw.RawRecordDescriptor;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes stored SPI rows as query records: signal rows as {@link SpiRowDescriptor} lays them out,
 * or the payloads kept raw as {@link RawRecordDescriptor} does. Per chunk it finds the signal
 * columns once; per row it only sums lengths and copies bytes. Stateless.
 */
final class SpiDecoder {

    private SpiDecoder() {
    }

    /**
     * One row per stored row holding at least one of the signals, with those signals.
     *
     * @param signals the requested signal columns in ascending typeid, or empty for every signal
     *                column the rows have
     */
    static void decodeSignals(ColumnBatch rows, List<String> signals, DecodeSink sink) {
        List<String> names = signals.isEmpty() ? signalColumns(rows) : signals;
        int[] typeids = new int[names.size()];
        BinaryVector[] values = new BinaryVector[names.size()];
        int present = 0;
        for (String name : names) {
            BinaryVector vector = rows.binaries(name);
            if (vector != null) {
                typeids[present] = SignalColumn.typeid(name);
                values[present++] = vector;
            }
        }
        LongVector ts = ts(rows);
        for (int row = rows.start(); row < rows.end(); row++) {
            int rowLength = 0;
            for (int s = 0; s < present; s++) {
                byte[] value = values[s].get(row);
                rowLength += value == null ? 0 : SpiFrameDescriptor.FLAGS_OFFSET + value.length;
            }
            if (rowLength == 0) {
                continue;
            }
            if (rowLength > SpiRowDescriptor.MAX_ROW_LENGTH) {
                throw new IllegalStateException("SPI row of ts " + ts.get(row) + " holds " + rowLength
                        + " bytes of frames, more than a u16 rowlen can say; it was not encoded by SPI");
            }
            ByteBuffer out = sink.claim(SpiRowDescriptor.HEADER_LENGTH + rowLength);
            out.putLong(ts.get(row)).putShort((short) rowLength);
            for (int s = 0; s < present; s++) {
                byte[] value = values[s].get(row);
                if (value != null) {
                    out.put(SpiFrameDescriptor.MAGIC).putShort((short) typeids[s]).put(value);
                }
            }
        }
    }

    /** One RAW-style record, {@code ts u64 | len u32 | payload}, per stored row kept raw. */
    static void decodeRaw(ColumnBatch rows, DecodeSink sink) {
        BinaryVector raw = rows.binaries(SpiCodec.RAW.name());
        if (raw == null) {
            return;
        }
        LongVector ts = ts(rows);
        for (int row = rows.start(); row < rows.end(); row++) {
            byte[] payload = raw.get(row);
            if (payload != null) {
                sink.claim(RawRecordDescriptor.recordLength(payload.length)).putLong(ts.get(row)).putInt(payload.length).put(payload);
            }
        }
    }

    /** The signal columns of these rows, in ascending typeid (the names sort as the typeids do). */
    private static List<String> signalColumns(ColumnBatch rows) {
        List<String> names = new ArrayList<>();
        for (Column column : rows.schema().columns()) {
            if (SignalColumn.typeid(column.name()) >= 0) {
                names.add(column.name());
            }
        }
        names.sort(null);
        return names;
    }

    private static LongVector ts(ColumnBatch rows) {
        LongVector ts = rows.longs(Column.TS.name());
        if (ts == null) {
            throw new IllegalArgumentException("SPI rows lack column 'ts': " + rows.schema());
        }
        return ts;
    }
}
