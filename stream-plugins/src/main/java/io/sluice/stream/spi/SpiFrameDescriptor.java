package io.sluice.stream.spi;

/**
 * One SPI signal frame as offsets over a byte array (integers big-endian). An SPI payload is a
 * sequence of such frames back to back, nothing before, between or after them:
 *
 * <pre>
 *   0        1                   3        4
 *  +--------+-------------------+--------+-------------------------+
 *  | 0x55   | typeid u16        | flags  | payload [len]           |
 *  +--------+-------------------+--------+-------------------------+
 *
 *  typeid:  bits 15..12 type (0..15), bits 11..0 id (0..4095)
 *  flags:   bit 7 update, bits 6..0 len (0..127)
 * </pre>
 *
 * Example: {@code 55 1A 2B 83 01 02 03} is the signal of type 1, id 0xA2B (typeid {@code 1a2b}),
 * update set, with the 3 payload bytes {@code 01 02 03}; 7 bytes in all.
 */
public final class SpiFrameDescriptor {

    /** The first byte of every frame. */
    public static final byte MAGIC = 0x55;
    /** Offset of the magic byte. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the typeid. */
    public static final int TYPEID_OFFSET = MAGIC_OFFSET + 1;
    /** Offset of the flags byte. */
    public static final int FLAGS_OFFSET = TYPEID_OFFSET + Short.BYTES;
    /** Offset of the signal's payload. */
    public static final int PAYLOAD_OFFSET = FLAGS_OFFSET + 1;
    /** Length of everything before the payload. */
    public static final int HEADER_LENGTH = PAYLOAD_OFFSET;

    /** The update bit of the flags byte. */
    public static final int UPDATE_MASK = 0x80;
    /** The payload length bits of the flags byte. */
    public static final int LENGTH_MASK = 0x7F;
    /** The longest signal payload. */
    public static final int MAX_PAYLOAD_LENGTH = LENGTH_MASK;
    /** Bits of the id within a typeid; the type sits above them. */
    public static final int ID_BITS = 12;

    private SpiFrameDescriptor() {
    }

    /** The typeid of the frame starting at {@code frame}, 0 to 0xFFFF. */
    public static int typeid(byte[] buffer, int frame) {
        return ((buffer[frame + TYPEID_OFFSET] & 0xFF) << 8) | (buffer[frame + TYPEID_OFFSET + 1] & 0xFF);
    }

    /** The flags byte of the frame starting at {@code frame}, 0 to 0xFF. */
    public static int flags(byte[] buffer, int frame) {
        return buffer[frame + FLAGS_OFFSET] & 0xFF;
    }

    /** The payload length of the frame starting at {@code frame}. */
    public static int payloadLength(byte[] buffer, int frame) {
        return buffer[frame + FLAGS_OFFSET] & LENGTH_MASK;
    }

    /** The whole length of the frame starting at {@code frame}. */
    public static int frameLength(byte[] buffer, int frame) {
        return HEADER_LENGTH + payloadLength(buffer, frame);
    }

    /** Whether a flags byte has the update bit. */
    public static boolean isUpdate(int flags) {
        return (flags & UPDATE_MASK) != 0;
    }

    /** The 4-bit type of a typeid. */
    public static int type(int typeid) {
        return typeid >>> ID_BITS;
    }

    /** The 12-bit id of a typeid. */
    public static int id(int typeid) {
        return typeid & ((1 << ID_BITS) - 1);
    }
}
