package io.sluice.exchange;

import io.sluice.ringbus.KeySource;

/**
 * An exchange's capture clock: gives each captured message {@code ts = max(previous ts,
 * arrival)}, so ts never decreases even when the wall clock steps back, and
 * {@code offset = previous offset + 1}. Both continue from what was on disk at open, so keys keep
 * growing across restarts. Messages of the same millisecond share a ts and differ by offset: none
 * is ever dropped for a collision, and key order is offset order.
 *
 * <p>Owned by the ring thread (the only caller), hence plain fields.
 */
public final class CaptureClock implements KeySource {

    private long lastTs;
    private long nextOffset;

    /**
     * @param nextOffset the first offset to give
     * @param lastTs     the largest ts given before (or {@link Long#MIN_VALUE})
     */
    public CaptureClock(long nextOffset, long lastTs) {
        if (nextOffset < 0) {
            throw new IllegalArgumentException("next offset " + nextOffset + " is negative");
        }
        this.nextOffset = nextOffset;
        this.lastTs = lastTs;
    }

    @Override
    public long ts(long arrivalMs) {
        if (arrivalMs > lastTs) {
            lastTs = arrivalMs;
        }
        return lastTs;
    }

    @Override
    public long nextOffset() {
        return nextOffset++;
    }
}
