package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.LogSettings;

/**
 * One segment of a log: a {@code .log} file of record batches ({@link RecordBatch}) plus its
 * {@link OffsetIndex} and {@link TimeIndex}.
 *
 * <h2>Naming</h2>
 * Files are named by the segment's base offset, the offset of its first batch, as 20 decimal digits:
 * {@code 00000000000000000368.log}, {@code 00000000000000000368.index},
 * {@code 00000000000000000368.timeindex}. The next segment's base offset bounds this one's offsets.
 * Suffixes added during compaction and deletion ({@value #CLEANED_SUFFIX}, {@value #SWAP_SUFFIX},
 * {@value #DELETED_SUFFIX}) are explained in {@link LogLoader}.
 *
 * <h2>Threads</h2>
 * The log's writer thread alone appends and rolls. Readers call {@link #iterator} and the
 * index lookups from any thread; they hold a reference ({@link #tryRetain}/{@link #release}) so a
 * segment deleted by retention or replaced by compaction stays open until its last reader leaves.
 * {@link #recover} runs only while the log is being opened, with no readers.
 */
final class Segment {
    static final String LOG_SUFFIX = ".log";
    static final String INDEX_SUFFIX = ".index";
    static final String TIME_INDEX_SUFFIX = ".timeindex";
    static final String CLEANED_SUFFIX = ".cleaned";
    static final String SWAP_SUFFIX = ".swap";
    static final String DELETED_SUFFIX = ".deleted";
    static final int BASE_OFFSET_DIGITS = 20;

    private static final Logger LOG = LoggerFactory.getLogger(Segment.class);

    private final long baseOffset;
    private final int indexIntervalBytes;
    private final FileChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final AtomicInteger refs = new AtomicInteger(1);
    private volatile Path logFile;
    private volatile int size;
    private volatile long nextOffset;
    private volatile long maxTimestamp = RecordBatch.NO_TIMESTAMP;
    private long rollTimestamp = RecordBatch.NO_TIMESTAMP;
    private int bytesSinceLastIndexEntry;
    private volatile boolean deleteWhenReleased;

    private Segment(Path dir, long baseOffset, LogSettings settings, String suffix, boolean forAppend) throws IOException {
        this.baseOffset = baseOffset;
        this.indexIntervalBytes = settings.indexIntervalBytes();
        this.logFile = dir.resolve(fileName(baseOffset, LOG_SUFFIX + suffix));
        this.channel = SegmentChannels.open(logFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            this.offsetIndex = new OffsetIndex(dir.resolve(fileName(baseOffset, INDEX_SUFFIX + suffix)), baseOffset,
                    settings.segmentIndexBytes(), forAppend);
            this.timeIndex = new TimeIndex(dir.resolve(fileName(baseOffset, TIME_INDEX_SUFFIX + suffix)), baseOffset,
                    settings.segmentIndexBytes(), forAppend);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        this.size = (int) Math.min(channel.size(), Integer.MAX_VALUE);
        this.nextOffset = baseOffset;
    }

    /** A new, empty segment (files created; a stale file of the same name is emptied). */
    static Segment create(Path dir, long baseOffset, LogSettings settings, String suffix) throws IOException {
        Files.deleteIfExists(dir.resolve(fileName(baseOffset, LOG_SUFFIX + suffix)));
        Files.deleteIfExists(dir.resolve(fileName(baseOffset, INDEX_SUFFIX + suffix)));
        Files.deleteIfExists(dir.resolve(fileName(baseOffset, TIME_INDEX_SUFFIX + suffix)));
        return new Segment(dir, baseOffset, settings, suffix, true);
    }

    /**
     * An existing segment. Its size, next offset and maximum timestamp are unknown until
     * {@link #recover} or {@link #loadTrusted} has run.
     */
    static Segment open(Path dir, long baseOffset, LogSettings settings, String suffix) throws IOException {
        return new Segment(dir, baseOffset, settings, suffix, false);
    }

    static String fileName(long baseOffset, String suffix) {
        String digits = Long.toString(baseOffset);
        return "0".repeat(BASE_OFFSET_DIGITS - digits.length()) + digits + suffix;
    }

    /** The base offset a segment file name starts with, or -1 when the name is not a segment file's. */
    static long parseBaseOffset(String fileName) {
        if (fileName.length() < BASE_OFFSET_DIGITS + 1 || fileName.charAt(BASE_OFFSET_DIGITS) != '.') {
            return -1;
        }
        for (int i = 0; i < BASE_OFFSET_DIGITS; i++) {
            if (!Character.isDigit(fileName.charAt(i))) {
                return -1;
            }
        }
        try {
            return Long.parseLong(fileName.substring(0, BASE_OFFSET_DIGITS));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    long baseOffset() {
        return baseOffset;
    }

    /** Offset after the last batch (base offset when empty). */
    long nextOffset() {
        return nextOffset;
    }

    int size() {
        return size;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    /** Timestamp of the segment's first record: what {@code segment_ms} measures from. */
    long rollTimestamp() {
        return rollTimestamp;
    }

    Path logFile() {
        return logFile;
    }

    OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    TimeIndex timeIndex() {
        return timeIndex;
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean indexesFull() {
        return offsetIndex.isFull() || timeIndex.isFull();
    }

    /**
     * Appends one sealed batch at the end of the file (writer thread), then adds index entries when
     * {@code index_interval_bytes} have passed since the last ones. A failed write changes nothing:
     * what part of the batch reached the file is cut off again, so the batch can be written again
     * at the same position (a {@link WriteFailed} says so); if even the cut fails, the file's end is
     * unknown and the plain {@link IOException} says so.
     */
    void append(ByteBuffer batch, long batchBaseOffset, long batchLastOffset, long batchFirstTimestamp,
                long batchMaxTimestamp) throws IOException {
        int position = size;
        int bytes = batch.remaining();
        try {
            reserveIndexEntries();
            while (batch.hasRemaining()) {
                channel.write(batch, position + (bytes - batch.remaining()));
            }
        } catch (IOException e) {
            cutBack(position, e);
            throw new WriteFailed(e);
        }
        indexBatch(position, batchBaseOffset, batchFirstTimestamp, batchMaxTimestamp, bytes);
        nextOffset = batchLastOffset + 1;
        size = position + bytes;
    }

    /**
     * Before a batch that gets index entries: gives the entries disk blocks, so that a full disk
     * fails the write with an {@link IOException} rather than the mapped write with SIGBUS.
     */
    private void reserveIndexEntries() throws IOException {
        if (bytesSinceLastIndexEntry > indexIntervalBytes) {
            offsetIndex.reserveNextEntry();
            timeIndex.reserveNextEntry();
        }
    }

    /** Cuts a partly written batch off the end of the file again. */
    private void cutBack(int position, IOException cause) throws IOException {
        try {
            if (channel.size() > position) {
                channel.truncate(position);
            }
        } catch (IOException e) {
            e.addSuppressed(cause);
            throw new IOException("cannot cut " + logFile + " back to " + position + " bytes after a failed write: "
                    + e.getMessage(), e);
        }
    }

    /** A write that failed and left the file as it was before. */
    static final class WriteFailed extends IOException {
        WriteFailed(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** Index bookkeeping for a batch about to sit at {@code position}; shared by append, recovery and cleaning. */
    private void indexBatch(int position, long batchBaseOffset, long batchFirstTimestamp, long batchMaxTimestamp, int bytes) {
        if (bytesSinceLastIndexEntry > indexIntervalBytes) {
            offsetIndex.append(batchBaseOffset, position);
            timeIndex.maybeAppend(maxTimestamp, batchBaseOffset);
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += bytes;
        if (rollTimestamp < 0 && batchFirstTimestamp >= 0) {
            rollTimestamp = batchFirstTimestamp;
        }
        if (batchMaxTimestamp > maxTimestamp) {
            maxTimestamp = batchMaxTimestamp;
        }
    }

    /** Reads batches in [start, end) of the file; {@code verifyCrc} for recovery and reads. */
    BatchIterator iterator(long start, long end, boolean verifyCrc) {
        return new BatchIterator(channel, logFile, start, end, verifyCrc);
    }

    /** As {@link #iterator(long, long, boolean)}, reading through {@code buffer}. */
    BatchIterator iterator(long start, long end, boolean verifyCrc, ByteBuffer buffer) {
        return new BatchIterator(channel, logFile, start, end, verifyCrc, buffer);
    }

    /** Scan start for {@code offset}: the position of the largest indexed batch at or below it. */
    int positionFor(long offset) {
        return offsetIndex.lookup(offset);
    }

    /**
     * Rebuilds this segment's state and indexes by reading every batch and checking its CRC, then
     * cuts the file after the last valid batch. Returns how many bytes were cut; logs the file, the
     * position and why. Runs while the log is opened, before any reader exists.
     */
    RecoveryCut recover() throws IOException {
        offsetIndex.growForAppend();
        timeIndex.growForAppend();
        offsetIndex.clear();
        timeIndex.clear();
        size = 0;
        nextOffset = baseOffset;
        maxTimestamp = RecordBatch.NO_TIMESTAMP;
        rollTimestamp = RecordBatch.NO_TIMESTAMP;
        bytesSinceLastIndexEntry = 0;
        long fileSize = channel.size();
        BatchIterator batches = iterator(0, fileSize, true);
        String problem = null;
        while (batches.next()) {
            ByteBuffer buffer = batches.buffer();
            int index = batches.batchIndex();
            long base = RecordBatch.baseOffset(buffer, index);
            long last = RecordBatch.lastOffset(buffer, index);
            if (base < nextOffset || last - baseOffset > Integer.MAX_VALUE) {
                problem = "batch offsets " + base + ".." + last + " do not follow offset " + (nextOffset - 1)
                        + " in a segment based at " + baseOffset;
                break;
            }
            int position = (int) batches.batchPosition();
            reserveIndexEntries();
            indexBatch(position, base, RecordBatch.firstTimestamp(buffer, index), RecordBatch.maxTimestamp(buffer, index),
                    batches.batchSize());
            nextOffset = last + 1;
            size = position + batches.batchSize();
        }
        if (problem == null && batches.stop() != BatchIterator.Stop.END) {
            problem = batches.stop() + ": " + batches.detail();
        }
        long cut = fileSize - size;
        if (cut > 0) {
            LOG.warn("Recovery of {} cut {} bytes at byte position {} after offset {}: {}",
                    logFile, cut, size, nextOffset - 1, problem);
            channel.truncate(size);
        }
        return new RecoveryCut(cut, problem);
    }

    /** What recovery cut from one segment. */
    record RecoveryCut(long bytes, String reason) {
    }

    /**
     * Loads a segment below the recovery point without a full scan: checks the indexes against the
     * file and walks the batches after the last offset index entry (validating their CRCs) to learn
     * the next offset and maximum timestamp. Returns null when the segment is sound, else why it
     * needs {@link #recover}.
     */
    String loadTrusted() throws IOException {
        long fileSize = channel.size();
        if (fileSize > Integer.MAX_VALUE) {
            return "file " + logFile + " has " + fileSize + " bytes, more than a segment may hold";
        }
        if (!offsetIndex.existedAtOpen() || !timeIndex.existedAtOpen()) {
            return "its index files are missing";
        }
        String problem = offsetIndex.check(fileSize);
        if (problem != null) {
            return problem;
        }
        int start = offsetIndex.lastPosition();
        long expectedFirst = offsetIndex.entries() == 0 ? -1 : offsetIndex.lastOffset();
        BatchIterator batches = iterator(start, fileSize, true);
        long next = baseOffset;
        long max = timeIndex.lastTimestamp();
        boolean first = true;
        while (batches.next()) {
            ByteBuffer buffer = batches.buffer();
            int index = batches.batchIndex();
            long base = RecordBatch.baseOffset(buffer, index);
            if (first && expectedFirst >= 0 && base != expectedFirst) {
                return "offset index " + offsetIndex.file() + " says offset " + expectedFirst + " starts at byte "
                        + start + " but the batch there starts at offset " + base;
            }
            if (base < next) {
                return "batch at byte " + batches.batchPosition() + " of " + logFile + " has offset " + base
                        + ", not after " + (next - 1);
            }
            first = false;
            next = RecordBatch.lastOffset(buffer, index) + 1;
            max = Math.max(max, RecordBatch.maxTimestamp(buffer, index));
        }
        if (batches.stop() != BatchIterator.Stop.END) {
            return "batch at byte " + batches.validEnd() + " of " + logFile + ": " + batches.stop() + ": " + batches.detail();
        }
        problem = timeIndex.check(next);
        if (problem != null) {
            return problem;
        }
        size = (int) fileSize;
        nextOffset = next;
        maxTimestamp = max;
        rollTimestamp = readFirstTimestamp();
        return null;
    }

    private long readFirstTimestamp() throws IOException {
        if (size < RecordBatch.HEADER_SIZE) {
            return RecordBatch.NO_TIMESTAMP;
        }
        ByteBuffer header = ByteBuffer.allocate(RecordBatch.HEADER_SIZE);
        while (header.hasRemaining()) {
            if (channel.read(header, header.position()) < 0) {
                break;
            }
        }
        return header.getLong(RecordBatch.FIRST_TIMESTAMP_OFFSET);
    }

    /** Makes the indexes writable again when an inactive segment becomes the active one at open. */
    void prepareForAppend() throws IOException {
        offsetIndex.growForAppend();
        timeIndex.growForAppend();
        bytesSinceLastIndexEntry = size - offsetIndex.lastPosition();
    }

    /** The segment stops being active: cut the preallocated index files to their entries. */
    void onBecomeInactive() throws IOException {
        offsetIndex.trimToValidSize();
        timeIndex.trimToValidSize();
    }

    /** fdatasync of the log file only: what a group commit needs. */
    void flushLog() throws IOException {
        channel.force(false);
    }

    /** Log and both indexes to disk: required before the recovery point may pass this segment. */
    void flush() throws IOException {
        channel.force(false);
        offsetIndex.flush();
        timeIndex.flush();
    }

    /** Renames the three files from one suffix to another (compaction's swap, deletion). */
    void changeSuffix(String from, String to) throws IOException {
        Path dir = logFile.getParent();
        offsetIndex.renameTo(dir.resolve(fileName(baseOffset, INDEX_SUFFIX + to)));
        timeIndex.renameTo(dir.resolve(fileName(baseOffset, TIME_INDEX_SUFFIX + to)));
        Path target = dir.resolve(fileName(baseOffset, LOG_SUFFIX + to));
        Files.move(logFile, target, StandardCopyOption.ATOMIC_MOVE);
        logFile = target;
    }

    /** A reader's claim; false when the segment is already closed. */
    boolean tryRetain() {
        while (true) {
            int n = refs.get();
            if (n <= 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Drops a claim; the last one closes the files, and deletes them when marked for deletion. */
    void release() {
        int left = refs.decrementAndGet();
        if (left == 0) {
            closeFiles();
        } else if (left < 0) {
            throw new IllegalStateException("segment " + logFile + " was released more often than it was retained");
        }
    }

    /** The log gives the segment up: renamed to {@value #DELETED_SUFFIX} now, deleted when the last reader leaves. */
    void markDeleted() throws IOException {
        changeSuffix("", DELETED_SUFFIX);
        deleteWhenReleased = true;
    }

    /** Deletion without a rename (a segment that was never live, or is already suffixed). */
    void deleteWhenReleased() {
        deleteWhenReleased = true;
    }

    private void closeFiles() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.warn("Closing {} failed", logFile, e);
        }
        offsetIndex.unmap();
        timeIndex.unmap();
        if (deleteWhenReleased) {
            try {
                Files.deleteIfExists(logFile);
                offsetIndex.deleteFile();
                timeIndex.deleteFile();
            } catch (IOException e) {
                LOG.warn("Deleting segment {} failed; it is removed at the next open", logFile, e);
            }
        }
    }

    @Override
    public String toString() {
        return "Segment[" + logFile + ", size=" + size + ", offsets " + baseOffset + ".." + (nextOffset - 1) + "]";
    }
}
