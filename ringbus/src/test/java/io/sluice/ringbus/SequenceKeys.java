package io.sluice.ringbus;

/** ts = max(previous, arrival), offsets from a start value; like the exchange's capture clock. */
final class SequenceKeys implements KeySource {

    private long lastTs = Long.MIN_VALUE;
    private long next;

    SequenceKeys(long firstOffset) {
        this.next = firstOffset;
    }

    @Override
    public long ts(long arrivalMs) {
        lastTs = Math.max(lastTs, arrivalMs);
        return lastTs;
    }

    @Override
    public long nextOffset() {
        return next++;
    }
}
