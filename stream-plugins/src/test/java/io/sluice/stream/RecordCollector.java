package io.sluice.stream;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/** A decode sink that collects records back to back, like one unbounded frame, checking each claim is filled exactly. */
public final class RecordCollector implements DecodeSink {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteBuffer pending;
    private int records;

    @Override
    public ByteBuffer claim(int length) {
        flush();
        records++;
        pending = ByteBuffer.allocate(length);
        return pending;
    }

    /** How many records were claimed. */
    public int records() {
        return records;
    }

    /** Every record so far, concatenated. */
    public byte[] bytes() {
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
