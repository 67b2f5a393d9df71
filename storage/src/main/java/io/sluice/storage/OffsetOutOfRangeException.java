package io.sluice.storage;

/**
 * A read or trim named an offset outside {@code [startOffset, endOffset]} of a shard or log; the
 * message gives all three values.
 */
public final class OffsetOutOfRangeException extends StorageException {
    private final String shard;
    private final long offset;
    private final long startOffset;
    private final long endOffset;

    public OffsetOutOfRangeException(String shard, long offset, long startOffset, long endOffset) {
        super("offset " + offset + " is out of range for shard '" + shard + "': valid offsets are "
                + startOffset + " to " + endOffset + " (the end is the next offset to be written)");
        this.shard = shard;
        this.offset = offset;
        this.startOffset = startOffset;
        this.endOffset = endOffset;
    }

    public String shard() {
        return shard;
    }

    public long offset() {
        return offset;
    }

    public long startOffset() {
        return startOffset;
    }

    public long endOffset() {
        return endOffset;
    }
}
