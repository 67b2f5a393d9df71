package io.sluice.storage.segment;

import java.nio.ByteBuffer;

/**
 * The read buffer of log cursors, one kept per thread: a cursor takes it and gives it back when it
 * closes, so that a read (a Kafka fetch, say) does not allocate and clear {@value BatchIterator#DEFAULT_READ_BYTES}
 * bytes each time. A cursor opened while another on the same thread holds the buffer gets a new one.
 */
final class ReadBuffers {
    /** A buffer grown past this for a large batch is not kept. */
    private static final int MAX_KEPT_BYTES = 4 * BatchIterator.DEFAULT_READ_BYTES;
    private static final ThreadLocal<ByteBuffer> KEPT = new ThreadLocal<>();

    private ReadBuffers() {
    }

    /** This thread's buffer, which the caller now owns, or a new one. */
    static ByteBuffer take() {
        ByteBuffer buffer = KEPT.get();
        if (buffer == null) {
            return ByteBuffer.allocate(BatchIterator.DEFAULT_READ_BYTES);
        }
        KEPT.remove();
        return buffer;
    }

    /** Gives a buffer back for this thread's next cursor; a large one is left to the collector. */
    static void giveBack(ByteBuffer buffer) {
        if (buffer.capacity() <= MAX_KEPT_BYTES) {
            KEPT.set(buffer);
        }
    }
}
