package io.sluice.stream;

import java.util.Arrays;

/**
 * The messages a plugin encodes: captured MQTT messages in key order, as parallel arrays (the
 * capture key {@code ts} and {@code offset}, the topic and the payload) and the window of rows
 * [{@link #start()}, {@link #end()}) that belong to this batch.
 *
 * <p>A read-only view: the arrays belong to the exchange, are never changed in the window, and
 * may be shared with the vectors a plugin returns (RAW encodes with zero copies that way). A
 * plugin must not change them and must not keep references beyond the {@link ColumnBatch} it
 * returns.
 *
 * <p>A batch is encoded once to be written ({@link #isWrite()} true: the writer's encoding) and
 * possibly many more times while still in memory, by queries. Codecs that count what they find in
 * payloads count only in the write, so each payload is counted once.
 */
public final class CaptureBatch {

    private final long[] ts;
    private final long[] offsets;
    private final String[] topics;
    private final byte[][] payloads;
    private final int start;
    private final int end;
    private final boolean write;

    /** A batch read by a query (not the write); see {@link #forWrite()}. */
    public CaptureBatch(long[] ts, long[] offsets, String[] topics, byte[][] payloads, int start, int end) {
        this(ts, offsets, topics, payloads, start, end, false);
    }

    private CaptureBatch(long[] ts, long[] offsets, String[] topics, byte[][] payloads, int start, int end, boolean write) {
        int length = Math.min(Math.min(ts.length, offsets.length), Math.min(topics.length, payloads.length));
        if (start < 0 || end < start || end > length) {
            throw new IllegalArgumentException("bad row window [" + start + ", " + end + ") over arrays of " + length);
        }
        this.ts = ts;
        this.offsets = offsets;
        this.topics = topics;
        this.payloads = payloads;
        this.start = start;
        this.end = end;
        this.write = write;
    }

    public int start() {
        return start;
    }

    public int end() {
        return end;
    }

    public int size() {
        return end - start;
    }

    public long ts(int row) {
        return ts[row];
    }

    public long offset(int row) {
        return offsets[row];
    }

    public String topic(int row) {
        return topics[row];
    }

    /** The payload exactly as published; the caller must not change it. */
    public byte[] payload(int row) {
        return payloads[row];
    }

    /** The {@code ts} key as a vector sharing this batch's array (row indexes are the same). */
    public LongVector tsVector() {
        return LongVector.of(ts);
    }

    /** The {@code offset} key as a vector sharing this batch's array. */
    public LongVector offsetVector() {
        return LongVector.of(offsets);
    }

    /** The topics as a vector sharing this batch's array. */
    public StringVector topicVector() {
        return StringVector.of(topics);
    }

    /** The payloads as a vector sharing this batch's array. */
    public BinaryVector payloadVector() {
        return BinaryVector.of(payloads);
    }

    /** Whether this is the encoding that writes the rows, the one in which codecs count. */
    public boolean isWrite() {
        return write;
    }

    /** The same rows, marked as the encoding that writes them; the exchange's writer path uses it. */
    public CaptureBatch forWrite() {
        return write ? this : new CaptureBatch(ts, offsets, topics, payloads, start, end, true);
    }

    /**
     * The same rows numbered from 0: this batch when its window starts at 0, else a copy of the
     * window's keys, topics and payload references (not the payload bytes). A codec that builds
     * one array per column works on it, so that a query's slice deep into a large batch costs
     * arrays of the slice's size, not of the whole batch.
     */
    public CaptureBatch fromZero() {
        if (start == 0) {
            return this;
        }
        return new CaptureBatch(Arrays.copyOfRange(ts, start, end), Arrays.copyOfRange(offsets, start, end),
                Arrays.copyOfRange(topics, start, end), Arrays.copyOfRange(payloads, start, end), 0, end - start, write);
    }

    /** The rows [from, to) of this batch (a write stays a write). */
    public CaptureBatch slice(int from, int to) {
        if (from < start || to > end || to < from) {
            throw new IllegalArgumentException("slice [" + from + ", " + to + ") outside [" + start + ", " + end + ")");
        }
        return new CaptureBatch(ts, offsets, topics, payloads, from, to, write);
    }

    /**
     * The first row in the window whose ts is at least {@code key} (or {@link #end()}); ts never
     * decreases with the row, so this is a binary search.
     */
    public int firstAtOrAfter(long key) {
        int lo = start;
        int hi = end;
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

    @Override
    public String toString() {
        return (write ? "CaptureBatch (write) rows [" : "CaptureBatch rows [") + start + ", " + end + ")"
                + (end > start ? " offsets " + offsets[start] + ".." + offsets[end - 1] : "");
    }
}
