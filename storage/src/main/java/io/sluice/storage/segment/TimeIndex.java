package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * The time index of one segment ({@code <baseOffset>.timeindex}): lets offset-for-timestamp skip
 * the part of a segment whose records are all older than the target.
 *
 * <h2>Layout</h2>
 * A sequence of 12-byte entries, big-endian, no header:
 * <pre>
 *  offset  width  field
 *   0      8      maxTimestamp     largest record timestamp at offsets below the entry's offset
 *   8      4      relativeOffset   offset - segment base offset; always an offset index entry
 * </pre>
 * Invariant: every record of the segment with an offset below {@code baseOffset + relativeOffset}
 * has a timestamp &lt;= maxTimestamp. So for a target T, the last entry with maxTimestamp &lt; T
 * names an offset before which no record can match, and the scan starts there.
 * Example: entry (1700000000500, 40) in segment 1000 says offsets 1000..1039 all carry timestamps
 * up to ...500; a search for T = ...501 starts at offset 1040.
 *
 * <p>The log writes an entry beside an offset index entry whenever the segment's maximum
 * timestamp has grown since the last time entry, so maxTimestamp strictly increases. Timestamps
 * need not be monotonic in the log; the invariant holds anyway. No checksum; rebuilt like the
 * offset index.
 */
final class TimeIndex extends MappedIndex {
    static final int ENTRY_SIZE = 12;

    TimeIndex(Path file, long baseOffset, int maxIndexBytes, boolean forAppend) throws IOException {
        super(file, baseOffset, maxIndexBytes, forAppend);
    }

    @Override
    int entrySize() {
        return ENTRY_SIZE;
    }

    @Override
    long keyAt(MappedByteBuffer map, int slot) {
        return map.getLong(slot * ENTRY_SIZE);
    }

    /** Adds (maxTimestamp, offset) when maxTimestamp exceeds the last entry's; else does nothing. */
    void maybeAppend(long maxTimestamp, long offset) {
        int slot = entries();
        if (slot > 0 && maxTimestamp <= lastTimestamp()) {
            return;
        }
        if (maxTimestamp < 0) {
            return;
        }
        MappedByteBuffer map = mmap();
        map.putLong(slot * ENTRY_SIZE, maxTimestamp);
        map.putInt(slot * ENTRY_SIZE + 8, (int) (offset - baseOffset));
        entryWritten();
    }

    /** The offset a search for the first record with timestamp >= {@code timestamp} starts at. */
    long lookup(long timestamp) {
        int slot = largestBelow(timestamp);
        return slot < 0 ? baseOffset : baseOffset + mmap().getInt(slot * ENTRY_SIZE + 8);
    }

    /** Largest timestamp the index knows of, or -1 when it is empty. */
    long lastTimestamp() {
        int n = entries();
        return n == 0 ? RecordBatch.NO_TIMESTAMP : keyAt(mmap(), n - 1);
    }

    /** Returns null when the entries keep the invariants for a segment ending before {@code nextOffset}. */
    String check(long nextOffset) {
        String lengthProblem = lengthProblem();
        if (lengthProblem != null) {
            return lengthProblem;
        }
        MappedByteBuffer map = mmap();
        long previousTimestamp = -1;
        long previousOffset = 0;
        for (int slot = 0; slot < entries(); slot++) {
            long timestamp = map.getLong(slot * ENTRY_SIZE);
            long offset = baseOffset + map.getInt(slot * ENTRY_SIZE + 8);
            if (timestamp <= previousTimestamp || offset < baseOffset + previousOffset || offset > nextOffset) {
                return "time index " + file() + " entry " + slot + " (timestamp " + timestamp + ", offset " + offset
                        + ") breaks the order after timestamp " + previousTimestamp + " or lies past offset " + nextOffset;
            }
            previousTimestamp = timestamp;
            previousOffset = offset - baseOffset;
        }
        return null;
    }
}
