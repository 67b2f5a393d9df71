package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

/**
 * The key and tag index of one sealed segment ({@code <base>.termindex}), so reads by key or tag
 * binary-search it instead of scanning the segment. Derived data: checked against its segment at
 * open and rebuilt when missing, damaged or stale (recovery cut the segment, compaction rewrote it).
 *
 * <h2>Layout (big-endian)</h2>
 * Header, 29 bytes: magic {@code 0x534C5449} ("SLTI") int32, version 1 int8, the segment's
 * {@code .log} size int64 and next offset int64 when the index was built, entry count int32,
 * CRC-32C of the entries int32. Then 12-byte entries sorted by (hash, offset): {@code termHash
 * int64} ({@link SegmentTermIndex#hash}: a key or a tag, told apart by a type byte) and
 * {@code relativeOffset int32}. A hash can collide, so readers compare the record's key or tag.
 *
 * <p>Opening the file reads it whole once more to build its {@link TermFilter} from the distinct
 * hashes, which stays in memory while the file is open so most lookups of a term the segment does
 * not hold never touch the file, and keeps every {@value #FENCE_STRIDE}th hash (8 bytes per
 * {@value #FENCE_STRIDE} entries) so a lookup's binary search of the file covers a few strides, not the whole file.
 */
final class TermIndexFile implements AutoCloseable {
    static final String SUFFIX = ".termindex";
    private static final int MAGIC = 0x534C5449;
    private static final byte VERSION = 1;
    private static final int HEADER = 4 + 1 + 8 + 8 + 4 + 4;
    private static final int ENTRY = 12;
    /** Every this many entries one hash stays in memory: a lookup's binary search of the file starts within 2 strides. */
    private static final int FENCE_STRIDE = 128;

    private final FileChannel channel;
    private final long baseOffset;
    private final int logBytes;
    private final long nextOffset;
    private final int count;
    private final TermFilter filter;
    private final long[] fences;

    private TermIndexFile(FileChannel channel, long baseOffset, int logBytes, long nextOffset, int count,
                          TermFilter filter, long[] fences) {
        this.channel = channel;
        this.filter = filter;
        this.fences = fences;
        this.baseOffset = baseOffset;
        this.logBytes = logBytes;
        this.nextOffset = nextOffset;
        this.count = count;
    }

    /** True while the segment is as it was when this index was built (compaction rewrites and merges segments). */
    boolean matches(int segmentLogBytes, long segmentNextOffset) {
        return logBytes == segmentLogBytes && nextOffset == segmentNextOffset;
    }

    static Path path(Path dir, long baseOffset) {
        return dir.resolve(Segment.fileName(baseOffset, SUFFIX));
    }

    /**
     * Writes the index of a segment from its (hash, offset) pairs, sorting them; the file replaces
     * any older one by rename. Not fsynced: a torn file fails its CRC and is rebuilt.
     */
    static void write(Path file, long baseOffset, int logBytes, long nextOffset, long[] hashes, long[] offsets, int size)
            throws IOException {
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> hashes[a] != hashes[b] ? Long.compare(hashes[a], hashes[b])
                : Long.compare(offsets[a], offsets[b]));
        ByteBuffer entries = ByteBuffer.allocate(size * ENTRY);
        for (int i : order) {
            entries.putLong(hashes[i]).putInt((int) (offsets[i] - baseOffset));
        }
        entries.flip();
        CRC32C crc = new CRC32C();
        crc.update(entries.duplicate());
        ByteBuffer header = ByteBuffer.allocate(HEADER).putInt(MAGIC).put(VERSION).putLong(logBytes).putLong(nextOffset)
                .putInt(size).putInt((int) crc.getValue()).flip();
        Path temp = file.resolveSibling(file.getFileName() + DurableFiles.TEMP_SUFFIX);
        try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (header.hasRemaining() || entries.hasRemaining()) {
                out.write(new ByteBuffer[] {header, entries});
            }
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Opens the file if it is whole and was built from the segment as it is now; else null. */
    static TermIndexFile openIfCurrent(Path file, long baseOffset, int logBytes, long nextOffset) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        try {
            ByteBuffer header = ByteBuffer.allocate(HEADER);
            readFully(channel, header, 0);
            header.flip();
            int count = header.remaining() == HEADER && header.getInt() == MAGIC && header.get() == VERSION
                    && header.getLong() == logBytes && header.getLong() == nextOffset ? header.getInt() : -1;
            if (count < 0 || channel.size() != HEADER + (long) count * ENTRY) {
                channel.close();
                return null;
            }
            int expectedCrc = header.getInt();
            CRC32C crc = new CRC32C();
            int[] distinct = {0};
            long[] fences = new long[(count + FENCE_STRIDE - 1) / FENCE_STRIDE];
            DistinctHashes counter = new DistinctHashes(hash -> distinct[0]++, fences);
            readEntries(channel, count, chunk -> {
                crc.update(chunk.duplicate());
                counter.accept(chunk);
            });
            if ((int) crc.getValue() != expectedCrc) {
                channel.close();
                return null;
            }
            TermFilter filter = new TermFilter(distinct[0]);
            readEntries(channel, count, new DistinctHashes(filter::add, null));
            return new TermIndexFile(channel, baseOffset, logBytes, nextOffset, count, filter, fences);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Hands the entries to {@code visit} in chunks of whole entries. */
    private static void readEntries(FileChannel channel, int count, Consumer<ByteBuffer> visit) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate(64 * 1024 - (64 * 1024) % ENTRY);
        for (long position = HEADER, end = HEADER + (long) count * ENTRY; position < end; ) {
            chunk.clear().limit((int) Math.min(chunk.capacity(), end - position));
            readFully(channel, chunk, position);
            chunk.flip();
            position += chunk.remaining();
            visit.accept(chunk);
        }
    }

    /**
     * Walks chunks of entries sorted by hash, passes each distinct hash on once and, given
     * {@code fences}, keeps the hash of every {@link #FENCE_STRIDE}th entry in it.
     */
    private static final class DistinctHashes implements Consumer<ByteBuffer> {
        private final LongConsumer sink;
        private final long[] fences;
        private long index;
        private long previous;

        DistinctHashes(LongConsumer sink, long[] fences) {
            this.sink = sink;
            this.fences = fences;
        }

        @Override
        public void accept(ByteBuffer chunk) {
            while (chunk.remaining() >= ENTRY) {
                long hash = chunk.getLong();
                chunk.getInt();
                if (index == 0 || hash != previous) {
                    sink.accept(hash);
                }
                if (fences != null && index % FENCE_STRIDE == 0) {
                    fences[(int) (index / FENCE_STRIDE)] = hash;
                }
                index++;
                previous = hash;
            }
        }
    }

    private static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                return;
            }
        }
    }

    /** False when the segment surely holds no term with this hash (its filter); reads nothing. */
    boolean mightContain(long hash) {
        return filter.mightContain(hash);
    }

    /** Up to {@code limit} offsets at or after {@code from} whose term hashes to {@code hash}, ascending, into {@code out}. */
    void offsets(long hash, long from, int limit, java.util.List<Long> out) throws IOException {
        ByteBuffer entry = ByteBuffer.allocate(ENTRY);
        int low = fenceBelow(hash);
        int high = fenceAbove(hash);
        while (low < high) {
            int mid = (low + high) >>> 1;
            read(mid, entry);
            long h = entry.getLong();
            long offset = baseOffset + entry.getInt();
            if (h < hash || (h == hash && offset < from)) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        for (int i = low, end = (int) Math.min(count, (long) low + limit); i < end; i++) {
            read(i, entry);
            if (entry.getLong() != hash) {
                return;
            }
            out.add(baseOffset + entry.getInt());
        }
    }

    /** An entry index at or before the first entry of {@code hash}: the fence before the first fence not below it. */
    private int fenceBelow(long hash) {
        int first = firstFence(hash, false);
        return Math.max(0, first - 1) * FENCE_STRIDE;
    }

    /** An entry index past the last entry of {@code hash}: the first fence above it, or the end. */
    private int fenceAbove(long hash) {
        int first = firstFence(hash, true);
        return first == fences.length ? count : first * FENCE_STRIDE;
    }

    /** The first fence above {@code hash} ({@code above}) or at or above it (else), or the fence count. */
    private int firstFence(long hash, boolean above) {
        int low = 0;
        int high = fences.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (fences[mid] < hash || (above && fences[mid] == hash)) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    private void read(int index, ByteBuffer entry) throws IOException {
        entry.clear();
        readFully(channel, entry, HEADER + (long) index * ENTRY);
        entry.flip();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new IllegalStateException("closing a term index failed: " + e.getMessage(), e);
        }
    }
}
