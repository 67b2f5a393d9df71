package io.sluice.stream.raw;

import java.nio.ByteBuffer;

/**
 * The default RAW record, {@code ts,data}, as offsets over a buffer (all big-endian):
 *
 * <pre>
 *   0                   8                   12
 *  +-------------------+-------------------+---------------------+
 *  | ts u64            | length u32        | data [length]       |
 *  +-------------------+-------------------+---------------------+
 * </pre>
 *
 * Records follow each other without padding; a frame holds whole records. Other column
 * selections are laid out as {@link RawField} describes.
 */
public final class RawRecordDescriptor {

    /** Offset of the capture timestamp, epoch ms. */
    public static final int TS_OFFSET = 0;
    /** Offset of the payload length. */
    public static final int LENGTH_OFFSET = TS_OFFSET + Long.BYTES;
    /** Offset of the payload. */
    public static final int DATA_OFFSET = LENGTH_OFFSET + Integer.BYTES;
    /** Length of everything before the payload. */
    public static final int HEADER_LENGTH = DATA_OFFSET;

    private RawRecordDescriptor() {
    }

    /** The total length of a record holding {@code dataLength} payload bytes. */
    public static int recordLength(int dataLength) {
        return HEADER_LENGTH + dataLength;
    }

    /** The ts of the record starting at {@code recordOffset}. */
    public static long ts(ByteBuffer buffer, int recordOffset) {
        return buffer.getLong(recordOffset + TS_OFFSET);
    }

    /** The payload length of the record starting at {@code recordOffset}. */
    public static int dataLength(ByteBuffer buffer, int recordOffset) {
        return buffer.getInt(recordOffset + LENGTH_OFFSET);
    }

    /** The offset of the record that follows the one at {@code recordOffset}. */
    public static int nextRecord(ByteBuffer buffer, int recordOffset) {
        return recordOffset + recordLength(dataLength(buffer, recordOffset));
    }
}
