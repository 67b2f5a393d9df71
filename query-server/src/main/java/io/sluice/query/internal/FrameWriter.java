package io.sluice.query.internal;

import io.sluice.stream.DecodeSink;
import java.nio.ByteBuffer;

/**
 * Cuts the records a plugin decodes into frames of at most {@code max_frame_bytes}, never
 * splitting a record: a record that does not fit the current frame starts the next one, and a
 * record larger than a whole frame becomes a frame of its own. Frames go to a {@link Target} as
 * soon as they are cut, so memory holds one frame whatever the reply's size.
 *
 * <p>It also checks the plugin's side of the {@link DecodeSink} contract: each record must be
 * exactly as long as claimed.
 *
 * <p>One reply at a time, on the query server's thread.
 */
public final class FrameWriter implements DecodeSink {

    /** Where cut frames go. */
    public interface Target {
        /**
         * Takes one frame: the buffer's remaining bytes.
         *
         * @param owned true when the buffer is the writer's no more and may be kept; false when the
         *              writer reuses it as soon as this returns
         */
        void frame(ByteBuffer frame, boolean owned);
    }

    private final ByteBuffer frame;
    private final Target target;
    private ByteBuffer oversized;
    private int expectedEnd;
    private long records;

    /** @param frame the reusable frame buffer, whose capacity is the frame bound */
    public FrameWriter(ByteBuffer frame, Target target) {
        this.frame = frame.clear();
        this.target = target;
    }

    @Override
    public ByteBuffer claim(int length) {
        if (length < 1) {
            throw new IllegalStateException("the plugin claimed a record of " + length + " bytes; records are at least 1 byte");
        }
        checkLastRecord();
        closeOversized();
        if (frame.position() > 0 && frame.remaining() < length) {
            flushFrame();
        }
        records++;
        if (length > frame.capacity()) {
            oversized = ByteBuffer.allocate(length);
            return oversized;
        }
        expectedEnd = frame.position() + length;
        return frame;
    }

    /** Whether records are waiting in a frame not yet handed on. */
    public boolean hasPending() {
        return frame.position() > 0 || oversized != null;
    }

    /** Hands on what is waiting now, as a (possibly short) frame. */
    public void flush() {
        checkLastRecord();
        closeOversized();
        flushFrame();
    }

    /** Records claimed so far. */
    public long records() {
        return records;
    }

    private void checkLastRecord() {
        if (oversized != null) {
            if (oversized.hasRemaining()) {
                throw new IllegalStateException("the plugin wrote " + oversized.position() + " bytes of a record it claimed as "
                        + oversized.capacity());
            }
        } else if (frame.position() != expectedEnd) {
            throw new IllegalStateException("the plugin wrote a record ending at byte " + frame.position()
                    + " of its frame where it claimed it would end at " + expectedEnd);
        }
    }

    private void closeOversized() {
        if (oversized != null) {
            ByteBuffer record = oversized.flip();
            oversized = null;
            target.frame(record, true);
        }
    }

    private void flushFrame() {
        if (frame.position() > 0) {
            frame.flip();
            try {
                target.frame(frame, false);
            } finally {
                frame.clear();
                expectedEnd = 0;
            }
        }
    }
}
