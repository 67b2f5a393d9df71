package io.sluice.parquet.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;

/**
 * A growable byte array written little-endian, as Parquet's PLAIN encoding lays values out. It
 * is reused page after page, so a page's bytes must be copied (compressed) before
 * {@link #reset()}.
 */
final class PageBuffer {

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] bytes = new byte[64 * 1024];
    private int size;

    void putInt(int value) {
        ensure(Integer.BYTES);
        INT.set(bytes, size, value);
        size += Integer.BYTES;
    }

    void putLong(long value) {
        ensure(Long.BYTES);
        LONG.set(bytes, size, value);
        size += Long.BYTES;
    }

    void putByte(int value) {
        ensure(1);
        bytes[size++] = (byte) value;
    }

    /** The value's length as a 4-byte int, then its bytes: PLAIN BYTE_ARRAY. */
    void putLengthPrefixed(byte[] value) {
        ensure(Integer.BYTES + value.length);
        INT.set(bytes, size, value.length);
        System.arraycopy(value, 0, bytes, size + Integer.BYTES, value.length);
        size += Integer.BYTES + value.length;
    }

    int size() {
        return size;
    }

    /** A view of the bytes written since the last reset; valid until the next write or reset. */
    BytesInput view() {
        return BytesInput.from(bytes, 0, size);
    }

    void reset() {
        size = 0;
    }

    private void ensure(int more) {
        if (bytes.length - size < more) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
