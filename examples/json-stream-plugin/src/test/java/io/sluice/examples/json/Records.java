package io.sluice.examples.json;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Builds expected JSON records field by field, as JsonRecordDescriptor documents them. */
final class Records {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Records ts(long ts) {
        out.writeBytes(ByteBuffer.allocate(8).putLong(ts).array());
        return this;
    }

    Records absent() {
        out.write(0);
        return this;
    }

    Records number(double value) {
        out.write(1);
        out.writeBytes(ByteBuffer.allocate(8).putDouble(value).array());
        return this;
    }

    Records number(long value) {
        out.write(1);
        out.writeBytes(ByteBuffer.allocate(8).putLong(value).array());
        return this;
    }

    Records flag(boolean value) {
        out.write(1);
        out.write(value ? 1 : 0);
        return this;
    }

    Records text(String value) {
        return bytes(value.getBytes(StandardCharsets.UTF_8));
    }

    Records bytes(byte[] value) {
        out.write(1);
        out.writeBytes(ByteBuffer.allocate(4).putInt(value.length).array());
        out.writeBytes(value);
        return this;
    }

    byte[] toBytes() {
        return out.toByteArray();
    }
}
