package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * The sparse offset index of one segment ({@code <baseOffset>.index}): maps an offset to the byte
 * position of the batch where a scan for it should start.
 *
 * <h2>Layout</h2>
 * A sequence of 8-byte entries, big-endian, no header:
 * <pre>
 *  offset  width  field
 *   0      4      relativeOffset   batch base offset - segment base offset
 *   4      4      position         byte position of that batch in the segment's .log file
 * </pre>
 * Example: in segment 00000000000000000050.log a batch starting at offset 55 at byte 4210 is
 * stored as (5, 4210). Relative offsets keep entries at 4 bytes, which is why a segment rolls
 * before its offsets span 2^31.
 *
 * <p>Sparse: the log adds an entry for a batch once {@code index_interval_bytes} have been written
 * since the previous entry; a lookup returns the largest entry at or below the target and the
 * reader scans forward from there. Both fields strictly increase from entry to entry.
 *
 * <p>No checksum: the index is derived data. It is rebuilt from the log when missing, when it
 * fails {@link #check}, or when its segment is at or past the recovery point after a crash.
 */
final class OffsetIndex extends MappedIndex {
    static final int ENTRY_SIZE = 8;

    OffsetIndex(Path file, long baseOffset, int maxIndexBytes, boolean forAppend) throws IOException {
        super(file, baseOffset, maxIndexBytes, forAppend);
    }

    @Override
    int entrySize() {
        return ENTRY_SIZE;
    }

    @Override
    long keyAt(MappedByteBuffer map, int slot) {
        return baseOffset + map.getInt(slot * ENTRY_SIZE);
    }

    /** Adds an entry; the writer calls it only with increasing offsets and positions. */
    void append(long offset, int position) {
        int slot = entries();
        if (slot > 0 && (offset <= lastOffset() || position <= lastPosition())) {
            throw new IllegalStateException("offset index " + file() + ": entry (" + offset + ", " + position
                    + ") does not follow the last entry (" + lastOffset() + ", " + lastPosition() + ")");
        }
        MappedByteBuffer map = mmap();
        map.putInt(slot * ENTRY_SIZE, (int) (offset - baseOffset));
        map.putInt(slot * ENTRY_SIZE + 4, position);
        entryWritten();
    }

    /** Position to start scanning for {@code offset}: of the largest entry at or below it, else 0. */
    int lookup(long offset) {
        int slot = largestLowerBound(offset);
        return slot < 0 ? 0 : mmap().getInt(slot * ENTRY_SIZE + 4);
    }

    long lastOffset() {
        int n = entries();
        return n == 0 ? baseOffset : keyAt(mmap(), n - 1);
    }

    int lastPosition() {
        int n = entries();
        return n == 0 ? 0 : mmap().getInt((n - 1) * ENTRY_SIZE + 4);
    }

    /**
     * Returns null when every entry is plausible for a log of {@code logSize} bytes, else a sentence
     * naming the file, the entry and what is wrong.
     */
    String check(long logSize) {
        String lengthProblem = lengthProblem();
        if (lengthProblem != null) {
            return lengthProblem;
        }
        MappedByteBuffer map = mmap();
        long previousOffset = -1;
        long previousPosition = -1;
        for (int slot = 0; slot < entries(); slot++) {
            long relative = map.getInt(slot * ENTRY_SIZE);
            long position = map.getInt(slot * ENTRY_SIZE + 4);
            if (relative < 0 || relative <= previousOffset || position <= previousPosition || position >= logSize) {
                return "offset index " + file() + " entry " + slot + " (relative offset " + relative + ", position "
                        + position + ") does not follow (" + previousOffset + ", " + previousPosition
                        + ") inside a log of " + logSize + " bytes";
            }
            previousOffset = relative;
            previousPosition = position;
        }
        return null;
    }
}
