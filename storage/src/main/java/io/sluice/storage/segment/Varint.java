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

    /**
     * Reads varints out of an array between a position and a limit, advancing the position: the
     * record parser's cursor, over a heap buffer's array so that no byte costs a buffer call. One
     * per scan, reused; not thread-safe.
     */
    static final class Reader {
        private byte[] bytes;
        private int position;
        private int limit;

        /** Reads {@code bytes} from {@code position} up to (not including) {@code limit}. */
        void reset(byte[] array, int from, int to) {
            bytes = array;
            position = from;
            limit = to;
        }

        int position() {
            return position;
        }

        int limit() {
            return limit;
        }

        /** Moves the limit (within the array) to bound what follows. */
        void limit(int to) {
            limit = to;
        }

        /** Bytes left before the limit. */
        int remaining() {
            return limit - position;
        }

        /** Moves past {@code length} bytes; the caller has checked them against {@link #remaining}. */
        void skip(int length) {
            position += length;
        }

        byte readByte() {
            if (position >= limit) {
                throw new IllegalArgumentException("byte at " + position + " is past the limit " + limit);
            }
            return bytes[position++];
        }

        /** A sixth continuation byte, or one past the limit, is malformed. */
        int readInt() {
            int raw = 0;
            for (int shift = 0; shift <= 28; shift += 7) {
                byte b = readByte();
                raw |= (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            throw new IllegalArgumentException("varint longer than 5 bytes at " + (position - 5));
        }

        /** An eleventh continuation byte, or one past the limit, is malformed. */
        long readLong() {
            long raw = 0;
            for (int shift = 0; shift <= 63; shift += 7) {
                byte b = readByte();
                raw |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            throw new IllegalArgumentException("varlong longer than 10 bytes at " + (position - 10));
        }
    }
}
