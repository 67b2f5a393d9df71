package io.sluice.stream.spi;

import java.io.ByteArrayOutputStream;

/** Builds SPI payloads and decoded rows from signals, independently of the codec's parsing. */
final class Frames {

    private Frames() {
    }

    /** One frame with payload bytes given as ints. */
    static byte[] frame(int typeid, boolean update, int... payload) {
        return frame(typeid, update, bytes(payload));
    }

    /** One frame: 0x55, typeid, flags (update bit and the payload's length), payload. */
    static byte[] frame(int typeid, boolean update, byte[] payload) {
        byte[] frame = new byte[4 + payload.length];
        frame[0] = 0x55;
        frame[1] = (byte) (typeid >>> 8);
        frame[2] = (byte) typeid;
        frame[3] = (byte) ((update ? 0x80 : 0) | payload.length);
        System.arraycopy(payload, 0, frame, 4, payload.length);
        return frame;
    }

    /** Byte arrays back to back. */
    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** A decoded row: ts u64, rowlen u16, the frames. */
    static byte[] row(long ts, byte[]... frames) {
        byte[] body = concat(frames);
        byte[] header = new byte[10];
        for (int i = 0; i < 8; i++) {
            header[i] = (byte) (ts >>> (56 - 8 * i));
        }
        header[8] = (byte) (body.length >>> 8);
        header[9] = (byte) body.length;
        return concat(header, body);
    }

    static byte[] bytes(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }
}
