package io.sluice.streams.internal;

import java.nio.ByteBuffer;

/**
 * Hands out producer ids that are unique for the life of the data, across restarts: ids are
 * reserved in blocks of {@value #BLOCK}, and the end of the reserved block is written to the
 * {@link StateLog} before any id of it is handed out, so an id handed out before a crash is never
 * handed out again. Thread-safe.
 */
public final class ProducerIds {
    static final String KEY = "producer-ids";
    static final long BLOCK = 1000;
    /** The first id ever handed out; low ids are left alone so they never look like a default. */
    private static final long FIRST = 1000;

    private final StateLog state;
    private long next;
    private long limit;

    public ProducerIds(StateLog state) {
        this.state = state;
        byte[] stored = state.get(KEY);
        this.next = stored == null ? FIRST : ByteBuffer.wrap(stored).getLong();
        this.limit = next;
    }

    /** A producer id never handed out before. */
    public synchronized long next() {
        if (next == limit) {
            long newLimit = limit + BLOCK;
            state.put(KEY, ByteBuffer.allocate(Long.BYTES).putLong(newLimit).array());
            limit = newLimit;
        }
        return next++;
    }
}
