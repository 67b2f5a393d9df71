package io.sluice.query.wire;

/**
 * The end-of-reply marker of the query channel: a frame of exactly two bytes.
 *
 * <pre>
 *   0      1
 *  +------+------+
 *  | 0x0B | 0xAD |
 *  +------+------+
 * </pre>
 *
 * A data frame never equals it: every data frame holds whole records, and the shortest record
 * of any built-in plugin is longer than two bytes.
 */
public final class EofFrame {

    /** Offset of the first marker byte. */
    public static final int FIRST_OFFSET = 0;
    /** Offset of the second marker byte. */
    public static final int SECOND_OFFSET = FIRST_OFFSET + 1;
    /** Length of the frame. */
    public static final int LENGTH = SECOND_OFFSET + 1;
    /** The first byte. */
    public static final byte FIRST = 0x0B;
    /** The second byte. */
    public static final byte SECOND = (byte) 0xAD;

    private EofFrame() {
    }

    /** A fresh copy of the frame's bytes. */
    public static byte[] bytes() {
        return new byte[] {FIRST, SECOND};
    }

    /** Whether a received frame is the EOF marker. */
    public static boolean isEof(byte[] frame) {
        return frame != null && frame.length == LENGTH && frame[FIRST_OFFSET] == FIRST && frame[SECOND_OFFSET] == SECOND;
    }
}
