package io.sluice.ringbus;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A batch of captured messages in columns: key ({@code ts}, {@code offset}), topic and payload
 * per row, rows in key order.
 *
 * <p>Threading: the ring thread alone appends, then seals the batch when it hands it up; after
 * that the batch never changes and is never reused. Any thread may take {@link #contents()} at any
 * time: it sees a prefix of the rows, each complete (the size is published with a release store
 * after the row is written, and arrays are only ever replaced by larger copies). So a reader
 * holding a batch keeps a stable view while the batch moves from the ring to the writer to disk.
 */
public final class Batch {

    private static final int MIN_CAPACITY = 16;
    /** Bytes counted per row besides topic and payload: the two 8-byte keys. */
    static final int ROW_OVERHEAD = 16;
    private static final VarHandle SIZE;

    static {
        try {
            SIZE = MethodHandles.lookup().findVarHandle(Batch.class, "size", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int cap;
    private final long maxBytes;
    private volatile Columns columns;
    @SuppressWarnings("unused") // accessed through SIZE
    private volatile int size;

    // Ring thread only.
    private int count;
    private long bytes;
    private long firstAppendNanos;
    private boolean sealed;

    /** The arrays of a batch; replaced whole (with copies) when the batch grows. */
    private static final class Columns {
        final long[] ts;
        final long[] offsets;
        final String[] topics;
        final byte[][] payloads;

        Columns(int capacity) {
            ts = new long[capacity];
            offsets = new long[capacity];
            topics = new String[capacity];
            payloads = new byte[capacity][];
        }

        Columns(Columns from, int capacity) {
            ts = Arrays.copyOf(from.ts, capacity);
            offsets = Arrays.copyOf(from.offsets, capacity);
            topics = Arrays.copyOf(from.topics, capacity);
            payloads = Arrays.copyOf(from.payloads, capacity);
        }
    }

    /**
     * A batch that fills until {@code cap} rows or {@code maxBytes} bytes.
     *
     * @param initialCapacity rows to allocate up front; the arrays double when full, up to cap
     */
    public Batch(int initialCapacity, int cap, long maxBytes) {
        if (cap < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("cap " + cap + " and maxBytes " + maxBytes + " must be positive");
        }
        this.cap = cap;
        this.maxBytes = maxBytes;
        this.columns = new Columns(Math.max(1, Math.min(cap, Math.max(MIN_CAPACITY, initialCapacity))));
    }

    /**
     * Appends one row; ring thread only.
     *
     * @param nowNanos {@link System#nanoTime()}, used for the age of the batch at its first row
     * @throws IllegalStateException when sealed or full
     */
    public void append(long ts, long offset, String topic, byte[] payload, long nowNanos) {
        if (sealed || count == cap) {
            throw new IllegalStateException(sealed ? "batch is sealed" : "batch is full at " + cap + " rows");
        }
        Columns c = columns;
        if (count == c.ts.length) {
            c = new Columns(c, (int) Math.min(cap, 2L * count));
            columns = c;
        }
        c.ts[count] = ts;
        c.offsets[count] = offset;
        c.topics[count] = topic;
        c.payloads[count] = payload;
        if (count == 0) {
            firstAppendNanos = nowNanos;
        }
        bytes += ROW_OVERHEAD + topic.length() + payload.length;
        count++;
        SIZE.setRelease(this, count);
    }

    /** Whether the batch reached cap rows or max bytes; ring thread only. */
    public boolean isFull() {
        return count == cap || bytes >= maxBytes;
    }

    /** How long ago the first row arrived, or 0 when empty; ring thread only. */
    public long ageNanos(long nowNanos) {
        return count == 0 ? 0 : nowNanos - firstAppendNanos;
    }

    /** Bytes of keys, topics (UTF-16 length) and payloads; ring thread only. */
    public long bytes() {
        return bytes;
    }

    /** Marks the batch as complete; ring thread only. */
    public void seal() {
        sealed = true;
    }

    /** Rows appended so far; any thread. */
    public int size() {
        return (int) SIZE.getAcquire(this);
    }

    /** The rows appended so far, a stable view; any thread. */
    public Contents contents() {
        int n = size();
        Columns c = columns;
        return new Contents(c.ts, c.offsets, c.topics, c.payloads, n);
    }

    /**
     * A stable view of rows [0, size) of a batch: arrays that may be longer than size, whose
     * first size elements never change. Readers must not change them either.
     *
     * @param ts       capture timestamps, never decreasing
     * @param offsets  capture offsets, strictly increasing
     * @param topics   topics
     * @param payloads payloads
     * @param size     rows in the view
     */
    public record Contents(long[] ts, long[] offsets, String[] topics, byte[][] payloads, int size) {

        /** An empty view. */
        public static final Contents EMPTY = new Contents(new long[0], new long[0], new String[0], new byte[0][], 0);

        public boolean isEmpty() {
            return size == 0;
        }

        public long firstOffset() {
            return offsets[0];
        }

        public long lastOffset() {
            return offsets[size - 1];
        }

        public long minTs() {
            return ts[0];
        }

        public long maxTs() {
            return ts[size - 1];
        }

        /** The first row whose ts is at least {@code key}, or size: a binary search (ts never decreases). */
        public int firstAtOrAfter(long key) {
            int lo = 0;
            int hi = size;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (ts[mid] < key) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        /** The rows whose ts is in [start, end]: {@code [from, to)} as a two-element array. */
        public int[] range(long start, long end) {
            int from = firstAtOrAfter(start);
            int to = end == Long.MAX_VALUE ? size : firstAtOrAfter(end + 1);
            return new int[] {from, Math.max(from, to)};
        }
    }

    @Override
    public String toString() {
        Contents c = contents();
        return "Batch[" + c.size() + " rows" + (c.isEmpty() ? "" : ", offsets " + c.firstOffset() + ".." + c.lastOffset()) + "]";
    }
}
