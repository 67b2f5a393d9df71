package io.sluice.storage.segment;

import java.nio.ByteBuffer;

/**
 * Zig-zag variable-length integers as in Kafka's records and protocol buffers: 7 bits per byte,
 * low group first, high bit set on every byte but the last; zig-zag maps small negative numbers
 * (-1 marks a null key or value) to small codes. An int takes 1 to 5 bytes, a long 1 to 10.
 */
final class Varint {
    private Varint() {
    }

    static int sizeOfInt(int value) {
        return sizeOfUnsigned(((long) ((value << 1) ^ (value >> 31))) & 0xFFFFFFFFL);
    }

    static int sizeOfLong(long value) {
        long v = (value << 1) ^ (value >> 63);
        int bytes = 1;
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0L) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    private static int sizeOfUnsigned(long v) {
        int bytes = 1;
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0L) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    static void writeInt(int value, ByteBuffer buffer) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & 0xFFFFFF80) != 0) {
            buffer.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        buffer.put((byte) v);
    }

    static void writeLong(long value, ByteBuffer buffer) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0L) {
            buffer.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        buffer.put((byte) v);
    }

    /** Reads at the buffer's position and advances it; a sixth continuation byte is malformed. */
    static int readInt(ByteBuffer buffer) {
        int raw = 0;
        int shift = 0;
        while (true) {
            byte b = buffer.get();
            raw |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
            shift += 7;
            if (shift > 28) {
                throw new IllegalArgumentException("varint longer than 5 bytes at " + (buffer.position() - 5));
            }
        }
    }

    /** Reads at the buffer's position and advances it; an eleventh continuation byte is malformed. */
    static long readLong(ByteBuffer buffer) {
        long raw = 0;
        int shift = 0;
        while (true) {
            byte b = buffer.get();
            raw |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
            shift += 7;
            if (shift > 63) {
                throw new IllegalArgumentException("varlong longer than 10 bytes at " + (buffer.position() - 10));
            }
        }
    }
}
