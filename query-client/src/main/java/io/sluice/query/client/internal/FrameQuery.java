package io.sluice.query.client.internal;

import io.sluice.query.wire.ErrFrame;
import io.sluice.query.client.Query;
import io.sluice.query.client.QueryError;
import io.sluice.query.client.Record;
import io.sluice.query.wire.EofFrame;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * One reply, read frame by frame from a {@link PairConsumer}: data frames until the EOF frame, or
 * an ERR frame and then EOF. When the first frame does not come in time, the command is sent
 * again on a new connection, once.
 */
public final class FrameQuery implements Query {

    private final PairConsumer consumer;
    private final String command;
    private boolean resent;
    private boolean done;
    private boolean clean;
    private boolean reading;
    private long frames;
    private long bytes;

    FrameQuery(PairConsumer consumer, String command) {
        this.consumer = consumer;
        this.command = command;
    }

    @Override
    public String command() {
        return command;
    }

    @Override
    public byte[] nextFrame() {
        if (done) {
            return null;
        }
        byte[] frame = receive();
        reading = true;
        if (EofFrame.isEof(frame)) {
            done = true;
            clean = true;
            return null;
        }
        if (ErrFrame.isErr(frame)) {
            done = true;
            clean = EofFrame.isEof(consumer.receive());
            throw new QueryError(ErrFrame.code(frame), ErrFrame.reason(frame));
        }
        frames++;
        bytes += frame.length;
        return frame;
    }

    private byte[] receive() {
        byte[] frame = consumer.receive();
        if (frame == null && !reading && !resent) {
            resent = true;
            if (consumer.resend(command)) {
                frame = consumer.receive();
            }
        }
        if (frame == null) {
            done = true;
            throw consumer.timeout(reading ? "sent nothing for " + consumer.timeoutMillis() + " ms in the middle of the reply to '"
                    + command + "' after " + frames + " frames"
                    : "did not answer '" + command + "' within " + consumer.timeoutMillis() + " ms (asked twice, reconnecting between)");
        }
        return frame;
    }

    /** Whether the reply was read through its EOF, so the connection carries nothing more of it. */
    boolean clean() {
        return clean;
    }

    @Override
    public Iterator<byte[]> frames() {
        return new Iterator<>() {
            private byte[] next;

            @Override
            public boolean hasNext() {
                if (next == null) {
                    next = nextFrame();
                }
                return next != null;
            }

            @Override
            public byte[] next() {
                if (!hasNext()) {
                    throw new NoSuchElementException("the reply to '" + command + "' has ended");
                }
                byte[] frame = next;
                next = null;
                return frame;
            }
        };
    }

    @Override
    public Iterable<Record> records() {
        RawLayout layout = RawLayout.of(command);
        return () -> new RecordIterator(frames(), layout);
    }

    @Override
    public boolean done() {
        return done;
    }

    @Override
    public long frameCount() {
        return frames;
    }

    @Override
    public long byteCount() {
        return bytes;
    }

    @Override
    public void close() {
        done = true;
    }
}
