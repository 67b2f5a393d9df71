package io.sluice.storage.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

import io.sluice.storage.StoredRecord;

/**
 * A memory shard's records by offset: fixed-size chunks of slots, found by arithmetic on the
 * offset, so a lookup is two array reads whatever the shard's size (a sorted map of 10 million
 * records took about 23 levels of pointers, each a likely cache miss). Offsets are given out
 * densely, so the only empty slots are records dropped by compaction; a chunk whose records are all
 * gone is freed, so a compacted shard keeps at most one chunk per live record.
 *
 * <p>One writer (the shard's monitor) sets and clears slots and publishes a new {@link Directory}
 * when chunks are added or freed; readers read without locks, only offsets below the end the shard
 * published after writing them.
 */
final class RecordSlots {
    static final int CHUNK_BITS = 12;
    private static final int CHUNK = 1 << CHUNK_BITS;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(StoredRecord[].class);

    /** The chunks holding offsets from {@code firstChunk << CHUNK_BITS} on; a null chunk holds none. */
    private record Directory(long firstChunk, Chunk[] chunks) {
    }

    /** One chunk's slots and how many of them hold a record (written by the writer only). */
    private static final class Chunk {
        final StoredRecord[] slots = new StoredRecord[CHUNK];
        int live;
    }

    private volatile Directory directory = new Directory(0, new Chunk[0]);

    /** The record at {@code offset}, or null when it was never written or has been dropped. */
    StoredRecord get(long offset) {
        Chunk chunk = chunk(directory, offset);
        return chunk == null ? null : (StoredRecord) SLOT.getAcquire(chunk.slots, slot(offset));
    }

    /** Stores a record at its offset, which no record holds. */
    void put(StoredRecord record) {
        long offset = record.offset();
        Chunk chunk = chunk(directory, offset);
        if (chunk == null) {
            chunk = addChunk(offset >>> CHUNK_BITS);
        }
        SLOT.setRelease(chunk.slots, slot(offset), record);
        chunk.live++;
    }

    /** Clears the slot at {@code offset}; returns the record it held, or null. */
    StoredRecord remove(long offset) {
        Directory current = directory;
        Chunk chunk = chunk(current, offset);
        StoredRecord old = chunk == null ? null : chunk.slots[slot(offset)];
        if (old == null) {
            return null;
        }
        SLOT.setRelease(chunk.slots, slot(offset), (StoredRecord) null);
        if (--chunk.live == 0) {
            freeChunk(current, offset >>> CHUNK_BITS);
        }
        return old;
    }

    /** The first offset in [from, end) that holds a record, or {@code end}; skips freed chunks whole. */
    long nextLive(long from, long end) {
        Directory current = directory;
        long offset = from;
        while (offset < end) {
            Chunk chunk = chunk(current, offset);
            if (chunk == null) {
                offset = ((offset >>> CHUNK_BITS) + 1) << CHUNK_BITS;
            } else if (SLOT.getAcquire(chunk.slots, slot(offset)) != null) {
                return offset;
            } else {
                offset++;
            }
        }
        return end;
    }

    private static Chunk chunk(Directory dir, long offset) {
        long index = (offset >>> CHUNK_BITS) - dir.firstChunk();
        return index < 0 || index >= dir.chunks().length ? null : dir.chunks()[(int) index];
    }

    private static int slot(long offset) {
        return (int) (offset & (CHUNK - 1));
    }

    /** Publishes a directory with a new chunk {@code number}; writes only go forward, so it is not before the first. */
    private Chunk addChunk(long number) {
        Directory current = directory;
        Chunk[] chunks = current.chunks();
        long first = chunks.length == 0 ? number : current.firstChunk();
        Chunk[] grown = Arrays.copyOf(chunks, (int) Math.max(chunks.length, number - first + 1));
        Chunk chunk = new Chunk();
        grown[(int) (number - first)] = chunk;
        directory = new Directory(first, grown);
        return chunk;
    }

    /** Forgets an empty chunk; leading empty chunks leave the directory, so it follows the shard's start. */
    private void freeChunk(Directory current, long number) {
        Chunk[] chunks = current.chunks().clone();
        chunks[(int) (number - current.firstChunk())] = null;
        int lead = 0;
        while (lead < chunks.length && chunks[lead] == null) {
            lead++;
        }
        directory = new Directory(current.firstChunk() + lead, Arrays.copyOfRange(chunks, lead, chunks.length));
    }
}
