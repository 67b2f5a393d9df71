package io.sluice.storage.segment;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * What the offset index and the time index share: a file of fixed-size entries, memory-mapped,
 * preallocated to {@code segment_index_bytes} while its segment is active and trimmed to its
 * entries when the segment rolls or closes (so on open, entries = file length / entry size).
 * Entries are sorted by their key; lookups binary-search the map.
 *
 * <p>Threads: one writer (the log's writer thread, or recovery before the log opens) appends and
 * resizes; any number of readers look up concurrently. A reader reads {@link #entries} (volatile)
 * before the mapping, so it never looks past what the writer published. A resize leaves the old
 * mapping to readers that still hold it; only the owning segment's final close unmaps.
 *
 * <p>Disk space: the preallocated file is sparse, and a write through the mapping into a hole needs
 * a block at that moment. On a full disk the kernel answers such a write with SIGBUS, which the JVM
 * turns into an {@link InternalError} thrown later, anywhere on the writing thread (it killed the
 * broker-state writer once, leaving every acknowledgement waiting for it unanswered). So the writer
 * {@link #reserveNextEntry() reserves} the blocks of the next entry with a plain write of zeros
 * first, which fails with an {@link IOException} instead, before anything changed.
 */
abstract class MappedIndex {
    /**
     * Blocks are reserved in aligned runs of this many bytes: at least a memory page on any
     * platform (4 to 64 KiB), as a write fault allocates the whole page it falls in.
     */
    static final int RESERVE_BYTES = 64 << 10;
    protected final long baseOffset;
    private final int maxIndexBytes;
    private volatile Path file;
    private volatile MappedByteBuffer mmap;
    private volatile int entries;
    private int maxEntries;
    /** Bytes at the start of the file known to have disk blocks since the last mapping; the writer's. */
    private long reservedBytes;
    private final long lengthAtOpen;
    private final boolean existedAtOpen;

    MappedIndex(Path file, long baseOffset, int maxIndexBytes, boolean forAppend) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.maxIndexBytes = maxIndexBytes;
        boolean existed = Files.exists(file);
        long length = existed ? Files.size(file) : 0;
        lengthAtOpen = length;
        existedAtOpen = existed;
        entries = existed ? (int) Math.min(length / entrySize(), Integer.MAX_VALUE / entrySize()) : 0;
        map(forAppend || !existed ? roundDown(maxIndexBytes) : entries * entrySize());
    }

    /** Bytes per entry. */
    abstract int entrySize();

    /** The search key of entry {@code slot}: an offset or a timestamp. */
    abstract long keyAt(MappedByteBuffer map, int slot);

    private int roundDown(int bytes) {
        return bytes / entrySize() * entrySize();
    }

    private void map(int bytes) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(bytes);
            mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, bytes);
        }
        maxEntries = bytes / entrySize();
        if (entries > maxEntries) {
            entries = maxEntries;
        }
        // Not even the entries are known to have blocks: a file found after a crash is preallocated, holes and all.
        reservedBytes = 0;
    }

    /**
     * Makes sure the next entry's page has disk blocks, so that writing the entry through the
     * mapping cannot fault; throws, changing nothing the index holds, when the disk is full.
     */
    final void reserveNextEntry() throws IOException {
        long end = (long) (entries + 1) * entrySize();
        if (end <= reservedBytes || entries >= maxEntries) {
            return;
        }
        long from = (long) entries * entrySize(); // never over an entry
        long to = Math.min((end + RESERVE_BYTES - 1) / RESERVE_BYTES * RESERVE_BYTES, (long) maxEntries * entrySize());
        ByteBuffer zeros = ByteBuffer.allocate((int) (to - from));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            while (zeros.hasRemaining()) {
                channel.write(zeros, from + zeros.position());
            }
        }
        reservedBytes = to;
    }

    /** Why the file as found at open cannot be an index of this entry size, or null. */
    final String lengthProblem() {
        if (lengthAtOpen % entrySize() != 0) {
            return "index file " + file + " has " + lengthAtOpen + " bytes, not a multiple of the "
                    + entrySize() + "-byte entry";
        }
        return null;
    }

    /** False when the file did not exist when this index was opened (it was created empty). */
    final boolean existedAtOpen() {
        return existedAtOpen;
    }

    final Path file() {
        return file;
    }

    final int entries() {
        return entries;
    }

    final boolean isFull() {
        return entries >= maxEntries;
    }

    final MappedByteBuffer mmap() {
        return mmap;
    }

    /** Bytes of the entries (not of the preallocated file). */
    final long sizeInBytes() {
        return (long) entries * entrySize();
    }

    /** Makes room to append again after a trim: maps the file at its preallocated size. */
    final void growForAppend() throws IOException {
        map(roundDown(maxIndexBytes));
    }

    /** Cuts the file to its entries, for a rolled or closed segment. */
    final void trimToValidSize() throws IOException {
        map(entries * entrySize());
    }

    /** Publishes one more entry whose bytes the subclass has just written at slot {@link #entries}. */
    final void entryWritten() {
        entries = entries + 1;
    }

    /** Forgets every entry, before recovery rebuilds them. */
    final void clear() {
        entries = 0;
    }

    final void flush() {
        mmap.force();
    }

    /** Slot of the largest entry whose key is <= {@code target}, or -1 when there is none. */
    final int largestLowerBound(long target) {
        int count = entries;
        MappedByteBuffer map = mmap;
        if (count == 0 || keyAt(map, 0) > target) {
            return -1;
        }
        int lo = 0;
        int hi = count - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (keyAt(map, mid) <= target) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Slot of the largest entry whose key is < {@code target}, or -1 when there is none. */
    final int largestBelow(long target) {
        return target == Long.MIN_VALUE ? -1 : largestLowerBound(target - 1);
    }

    final void renameTo(Path target) throws IOException {
        Files.move(file, target, StandardCopyOption.ATOMIC_MOVE);
        file = target;
    }

    /** Releases the mapping; only when no reader can use it any more. */
    final void unmap() {
        Unmapper.unmap(mmap);
    }

    final void deleteFile() throws IOException {
        Files.deleteIfExists(file);
    }
}
