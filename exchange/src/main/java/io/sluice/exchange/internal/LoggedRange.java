package io.sluice.exchange.internal;

import io.sluice.ringbus.Batch;

/**
 * A batch of captured records that lives in the exchange's write-ahead log: the log's offsets
 * [firstOffset, lastOffset], contiguous, and the key range they span.
 *
 * @param firstOffset offset of the first record
 * @param lastOffset  offset of the last record
 * @param minTs       ts of the first record
 * @param maxTs       ts of the last record (ts never decreases with offset)
 */
public record LoggedRange(long firstOffset, long lastOffset, long minTs, long maxTs) {

    public LoggedRange {
        if (lastOffset < firstOffset || maxTs < minTs) {
            throw new IllegalArgumentException("offsets " + firstOffset + ".." + lastOffset + " and ts " + minTs + ".." + maxTs
                    + " do not make a range");
        }
    }

    /** The range of a sealed, non-empty batch whose rows were appended to the log. */
    static LoggedRange of(Batch.Contents batch) {
        return new LoggedRange(batch.firstOffset(), batch.lastOffset(), batch.minTs(), batch.maxTs());
    }

    /** Records in the range. */
    public int count() {
        return (int) (lastOffset - firstOffset + 1);
    }
}
