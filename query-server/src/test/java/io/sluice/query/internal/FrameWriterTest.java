package io.sluice.query.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameWriterTest {

    private final List<byte[]> frames = new ArrayList<>();
    private final List<Boolean> owned = new ArrayList<>();
    private final FrameWriter writer = new FrameWriter(ByteBuffer.allocate(10), (frame, isOwned) -> {
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        frames.add(bytes);
        owned.add(isOwned);
    });

    private void record(int length, int value) {
        ByteBuffer out = writer.claim(length);
        for (int i = 0; i < length; i++) {
            out.put((byte) value);
        }
    }

    @Test
    void recordsFillFramesUpToTheBoundAndNeverStraddleTwo() {
        record(4, 1);
        record(4, 2);
        record(4, 3);
        record(6, 4);
        writer.flush();
        assertEquals(2, frames.size());
        assertEquals(8, frames.get(0).length, "the third record did not fit and started the next frame");
        assertEquals(10, frames.get(1).length);
        assertEquals(4, writer.records());
    }

    @Test
    void aRecordLargerThanAFrameGetsAFrameOfItsOwn() {
        record(3, 1);
        record(25, 2);
        record(3, 3);
        writer.flush();
        assertEquals(List.of(3, 25, 3), frames.stream().map(f -> f.length).toList());
        assertEquals(List.of(false, true, false), owned);
    }

    @Test
    void flushSendsAShortFrameAndNothingWhenEmpty() {
        writer.flush();
        assertTrue(frames.isEmpty());
        record(2, 1);
        assertTrue(writer.hasPending());
        writer.flush();
        assertEquals(1, frames.size());
        assertTrue(!writer.hasPending());
    }

    @Test
    void aPluginWritingOtherThanItClaimedIsCaught() {
        writer.claim(4).put((byte) 1);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> writer.claim(2));
        assertTrue(e.getMessage().contains("claimed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> writer.claim(0));
    }
}
