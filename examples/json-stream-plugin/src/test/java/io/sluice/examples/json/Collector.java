package io.sluice.examples.json;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.sluice.stream.DecodeSink;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/** A decode sink that keeps records back to back, checking each claim is filled exactly. */
final class Collector implements DecodeSink {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteBuffer pending;
    int records;

    @Override
    public ByteBuffer claim(int length) {
        flush();
        records++;
        pending = ByteBuffer.allocate(length);
        return pending;
    }

    byte[] bytes() {
        flush();
        return out.toByteArray();
    }

    private void flush() {
        if (pending != null) {
            assertFalse(pending.hasRemaining(), "decoder wrote fewer bytes than it claimed");
            out.writeBytes(pending.array());
            pending = null;
        }
    }
}
