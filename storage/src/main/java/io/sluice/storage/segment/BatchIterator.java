package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import io.sluice.storage.Crc32c;

/**
 * Walks the record batches of a byte range of a segment file with positional reads into one
 * reusable buffer (large reads for sequential scans; the buffer grows to fit a large batch). It
 * never throws on bad data: {@link #next} returns false and {@link #stop} says why (end of range,
 * torn batch, or corrupt batch, with the position and a description). Recovery truncates there;
 * readers report corruption. Not thread-safe; positional reads never disturb the writer.
 */
final class BatchIterator {
    /** Why iteration stopped. */
    enum Stop {
        /** Not stopped yet. */
        NONE,
        /** The range ended exactly at a batch boundary. */
        END,
        /** The last batch is incomplete: a torn write or a length that runs past the range. */
        TORN,
        /** A batch failed a header check or its CRC. */
        CORRUPT
    }

    private final FileChannel channel;
    private final Path file;
    private final boolean verifyCrc;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buffer;
    /** File position of buffer index 0. */
    private long bufferStart;
    private long end;
    private long next;
    private int batchIndex;
    private int recordsCrc;
    private long batchPosition;
    private Stop stop = Stop.NONE;
    private String detail;

    /** Bytes read at a time unless the caller's buffer says otherwise. */
    static final int DEFAULT_READ_BYTES = 256 * 1024;

    BatchIterator(FileChannel channel, Path file, long start, long end, boolean verifyCrc) {
        this(channel, file, start, end, verifyCrc, DEFAULT_READ_BYTES);
    }

    BatchIterator(FileChannel channel, Path file, long start, long end, boolean verifyCrc, int readBytes) {
        this(channel, file, start, end, verifyCrc, ByteBuffer.allocate(readBytes));
    }

    /** Reads through {@code buffer} (a heap buffer whose contents it overwrites), growing past it when a batch is larger. */
    BatchIterator(FileChannel channel, Path file, long start, long end, boolean verifyCrc, ByteBuffer buffer) {
        this.channel = channel;
        this.file = file;
        this.verifyCrc = verifyCrc;
        this.buffer = buffer;
        this.buffer.clear().limit(0);
        this.bufferStart = start;
        this.next = start;
        this.end = end;
    }

    /** Moves to the next complete, valid batch; false when there is none (see {@link #stop}). */
    boolean next() throws IOException {
        if (next >= end) {
            stop = Stop.END;
            return false;
        }
        long remaining = end - next;
        if (remaining < RecordBatch.LENGTH_LENGTH) {
            return stop(Stop.TORN, remaining + " trailing bytes are too few for a batch length");
        }
        int index = fill(RecordBatch.LENGTH_LENGTH);
        int length = buffer.getInt(index + RecordBatch.LENGTH_OFFSET);
        if (length < RecordBatch.HEADER_SIZE - RecordBatch.LENGTH_LENGTH) {
            return stop(Stop.CORRUPT, "batch length " + length + " is smaller than a batch header");
        }
        long size = RecordBatch.LENGTH_LENGTH + (long) length;
        if (size > remaining) {
            return stop(Stop.TORN, "batch of " + size + " bytes runs past the end of the data (" + remaining + " bytes left)");
        }
        index = fill((int) size);
        String problem = RecordBatch.checkHeader(buffer, index);
        if (problem != null) {
            return stop(Stop.CORRUPT, problem);
        }
        if (verifyCrc) {
            int computed = RecordBatch.hasKafkaRecords(buffer, index) ? crcByParts(index) : RecordBatch.computeCrc(buffer, index, crc);
            int stored = RecordBatch.storedCrc(buffer, index);
            if (computed != stored) {
                return stop(Stop.CORRUPT, "CRC-32C mismatch: stored " + Integer.toHexString(stored)
                        + ", computed " + Integer.toHexString(computed));
            }
        }
        batchIndex = index;
        batchPosition = next;
        next += size;
        return true;
    }

    /**
     * The batch's CRC-32C from those of its parts: header, records and tags, so the records' own
     * ({@link #recordsCrc}) comes without a second pass.
     */
    private int crcByParts(int index) {
        int records = RecordBatch.recordsIndex(buffer, index);
        int recordsEnd = RecordBatch.recordsEnd(buffer, index);
        int batchEnd = index + RecordBatch.sizeInBytes(buffer, index);
        int header = crcOf(index + RecordBatch.MAGIC_OFFSET, records);
        recordsCrc = crcOf(records, recordsEnd);
        int tags = crcOf(recordsEnd, batchEnd);
        return Crc32c.combine(Crc32c.combine(header, recordsCrc, recordsEnd - records), tags, batchEnd - recordsEnd);
    }

    private int crcOf(int from, int to) {
        crc.reset();
        crc.update(buffer.array(), buffer.arrayOffset() + from, to - from);
        return (int) crc.getValue();
    }

    private boolean stop(Stop reason, String why) {
        stop = reason;
        detail = why;
        return false;
    }

    /** Makes {@code bytes} bytes from file position {@code next} available; returns their buffer index. */
    private int fill(int bytes) throws IOException {
        int index = (int) (next - bufferStart);
        if (index >= 0 && index + bytes <= buffer.limit()) {
            return index;
        }
        if (index < 0 || index > buffer.limit()) {
            buffer.limit(0);
            index = 0;
            bufferStart = next;
        }
        buffer.position(index);
        buffer.compact();
        bufferStart = next;
        if (buffer.capacity() < bytes) {
            ByteBuffer larger = ByteBuffer.allocate(bytes);
            buffer.flip();
            larger.put(buffer);
            buffer = larger;
        }
        while (buffer.position() < bytes) {
            long want = Math.min(buffer.remaining(), end - (bufferStart + buffer.position()));
            int saved = buffer.limit();
            buffer.limit(buffer.position() + (int) want);
            int read = channel.read(buffer, bufferStart + buffer.position());
            buffer.limit(saved);
            if (read < 0) {
                throw new IOException("unexpected end of " + file + " at " + (bufferStart + buffer.position())
                        + " while reading " + bytes + " bytes at " + next);
            }
        }
        buffer.flip();
        return 0;
    }

    /** The buffer holding the current batch; valid until the next call to {@link #next}. */
    ByteBuffer buffer() {
        return buffer;
    }

    /**
     * CRC-32C of the records region of the current batch, a Kafka-layout batch read with its CRC
     * verified (checked as a part of the batch's).
     */
    int recordsCrc() {
        return recordsCrc;
    }

    /** Index of the current batch in {@link #buffer}. */
    int batchIndex() {
        return batchIndex;
    }

    /** File position of the current batch. */
    long batchPosition() {
        return batchPosition;
    }

    int batchSize() {
        return RecordBatch.sizeInBytes(buffer, batchIndex);
    }

    /** File position after the last valid batch (where a recovery truncates). */
    long validEnd() {
        return next;
    }

    Stop stop() {
        return stop;
    }

    String detail() {
        return detail;
    }

    Path file() {
        return file;
    }
}
