package io.sluice.stream.spi;

import java.nio.ByteBuffer;

/**
 * One decoded SPI row, a record of an SPI query reply, as offsets over a buffer (integers
 * big-endian):
 *
 * <pre>
 *   0                   8             10
 *  +-------------------+-------------+--------------------------------------------+
 *  | ts u64            | rowlen u16  | frames [rowlen]                            |
 *  +-------------------+-------------+--------------------------------------------+
 *
 *  frames: { 0x55 | typeid u16 | flags u8 | payload [flags &amp; 0x7F] }...   (see SpiFrameDescriptor)
 * </pre>
 *
 * {@code rowlen} counts the frame bytes that follow it, not the ts or itself. The frames are the
 * requested signals present in that captured message, in ascending typeid, each byte for byte as
 * it was published (a typeid repeated in one message appears once: its last frame). A row
 * without any requested signal is not sent, so {@code rowlen} is at least 4. Rows follow each
 * other without padding; a frame of the reply holds whole rows.
 *
 * <p>Example: a message captured at ts 1700000000000 holding signals {@code 0001} (update,
 * payload {@code 2A}) and {@code 0a2b} (payload {@code 01 02}), decoded with both requested:
 *
 * <pre>
 *  00 00 01 8B CF E5 68 00   ts
 *  00 0B                     rowlen 11
 *  55 00 01 81 2A            signal 0001, flags 0x81 (update, len 1)
 *  55 0A 2B 02 01 02         signal 0a2b, flags 0x02 (len 2)
 * </pre>
 */
public final class SpiRowDescriptor {

    /** Offset of the capture timestamp, epoch ms. */
    public static final int TS_OFFSET = 0;
    /** Offset of the length of the frames. */
    public static final int ROW_LENGTH_OFFSET = TS_OFFSET + Long.BYTES;
    /** Offset of the first frame. */
    public static final int FRAMES_OFFSET = ROW_LENGTH_OFFSET + Short.BYTES;
    /** Length of everything before the frames. */
    public static final int HEADER_LENGTH = FRAMES_OFFSET;
    /** The most frame bytes a row can hold. */
    public static final int MAX_ROW_LENGTH = 0xFFFF;

    private SpiRowDescriptor() {
    }

    /** The ts of the row starting at {@code rowOffset}. */
    public static long ts(ByteBuffer buffer, int rowOffset) {
        return buffer.getLong(rowOffset + TS_OFFSET);
    }

    /** The frame bytes of the row starting at {@code rowOffset}. */
    public static int rowLength(ByteBuffer buffer, int rowOffset) {
        return buffer.getShort(rowOffset + ROW_LENGTH_OFFSET) & 0xFFFF;
    }

    /** The offset of the row that follows the one at {@code rowOffset}. */
    public static int nextRow(ByteBuffer buffer, int rowOffset) {
        return rowOffset + HEADER_LENGTH + rowLength(buffer, rowOffset);
    }
}
