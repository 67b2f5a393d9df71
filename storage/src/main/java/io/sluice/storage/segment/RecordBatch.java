package io.sluice.storage.segment;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The record batch: the unit a log appends, checksums, indexes and recovers. This class is a
 * flyweight: named offsets and static accessors over a buffer holding a batch at some index.
 *
 * <h2>Batch layout (all integers big-endian)</h2>
 * <pre>
 *  offset  width  field            meaning
 *   0      4      length           bytes after this field; the batch occupies 4 + length bytes
 *   4      4      crc              CRC-32C (Castagnoli) of bytes [8, 4 + length): everything after it
 *   8      1      magic            format version, {@value #MAGIC}
 *   9      1      attributes       reserved, 0 (no compression)
 *  10      8      baseOffset       offset of the first record as written
 *  18      4      lastOffsetDelta  last offset - baseOffset as written; kept when compaction drops records
 *  22      8      firstTimestamp   timestamp of the first record as written; base of the timestamp deltas
 *  30      8      maxTimestamp     largest timestamp of the records present, -1 when there are none
 *  38      4      recordCount      records present (0 for the end marker compaction may leave)
 *  42      ...    records          recordCount records, in offset order
 * </pre>
 * Example: three records at offsets 100..102 give baseOffset 100 and lastOffsetDelta 2; after
 * compaction removes offset 102 the batch still says lastOffsetDelta 2, so the segment's next
 * offset (103) survives.
 *
 * <p>The CRC covers the base offset, unlike Kafka's, because we never rewrite offsets in place; a
 * flipped bit anywhere but the length field fails the check, and a damaged length either fails it
 * or runs past the end of the file.
 *
 * <h2>Record layout</h2>
 * <pre>
 *  length          varint   bytes after this field
 *  attributes      int8     reserved, 0
 *  timestampDelta  varlong  timestamp - firstTimestamp
 *  offsetDelta     varint   offset - baseOffset
 *  keyLength       varint   -1 for no key
 *  key             bytes
 *  valueLength     varint   -1 for no value (with a key: a tombstone)
 *  value           bytes
 *  tagCount        varint
 *  tags            tagCount times: tagLength varint, tag bytes (UTF-8)
 * </pre>
 * Varints are zig-zag encoded (see {@link Varint}).
 */
final class RecordBatch {
    static final int LENGTH_OFFSET = 0;
    static final int LENGTH_LENGTH = 4;
    static final int CRC_OFFSET = LENGTH_OFFSET + LENGTH_LENGTH;
    static final int CRC_LENGTH = 4;
    static final int MAGIC_OFFSET = CRC_OFFSET + CRC_LENGTH;
    static final int MAGIC_LENGTH = 1;
    static final int ATTRIBUTES_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH;
    static final int ATTRIBUTES_LENGTH = 1;
    static final int BASE_OFFSET_OFFSET = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH;
    static final int BASE_OFFSET_LENGTH = 8;
    static final int LAST_OFFSET_DELTA_OFFSET = BASE_OFFSET_OFFSET + BASE_OFFSET_LENGTH;
    static final int LAST_OFFSET_DELTA_LENGTH = 4;
    static final int FIRST_TIMESTAMP_OFFSET = LAST_OFFSET_DELTA_OFFSET + LAST_OFFSET_DELTA_LENGTH;
    static final int FIRST_TIMESTAMP_LENGTH = 8;
    static final int MAX_TIMESTAMP_OFFSET = FIRST_TIMESTAMP_OFFSET + FIRST_TIMESTAMP_LENGTH;
    static final int MAX_TIMESTAMP_LENGTH = 8;
    static final int RECORD_COUNT_OFFSET = MAX_TIMESTAMP_OFFSET + MAX_TIMESTAMP_LENGTH;
    static final int RECORD_COUNT_LENGTH = 4;
    static final int RECORDS_OFFSET = RECORD_COUNT_OFFSET + RECORD_COUNT_LENGTH;
    /** Bytes before the first record. */
    static final int HEADER_SIZE = RECORDS_OFFSET;
    /** The only format version this code writes and reads. */
    static final byte MAGIC = 1;
    /** Timestamp of a batch without records. */
    static final long NO_TIMESTAMP = -1;

    private RecordBatch() {
    }

    /** Total bytes of the batch at {@code index}, length field included. */
    static int sizeInBytes(ByteBuffer buffer, int index) {
        return LENGTH_LENGTH + buffer.getInt(index + LENGTH_OFFSET);
    }

    static long baseOffset(ByteBuffer buffer, int index) {
        return buffer.getLong(index + BASE_OFFSET_OFFSET);
    }

    static long lastOffset(ByteBuffer buffer, int index) {
        return baseOffset(buffer, index) + buffer.getInt(index + LAST_OFFSET_DELTA_OFFSET);
    }

    static long firstTimestamp(ByteBuffer buffer, int index) {
        return buffer.getLong(index + FIRST_TIMESTAMP_OFFSET);
    }

    static long maxTimestamp(ByteBuffer buffer, int index) {
        return buffer.getLong(index + MAX_TIMESTAMP_OFFSET);
    }

    static int recordCount(ByteBuffer buffer, int index) {
        return buffer.getInt(index + RECORD_COUNT_OFFSET);
    }

    static int storedCrc(ByteBuffer buffer, int index) {
        return buffer.getInt(index + CRC_OFFSET);
    }

    /** CRC-32C of everything after the crc field; leaves the buffer's position and limit as they were. */
    static int computeCrc(ByteBuffer buffer, int index, CRC32C crc) {
        int size = sizeInBytes(buffer, index);
        ByteBuffer view = buffer.duplicate();
        view.limit(index + size).position(index + MAGIC_OFFSET);
        crc.reset();
        crc.update(view);
        return (int) crc.getValue();
    }

    /**
     * Checks the fixed header of a complete batch whose bytes are all in the buffer; returns null
     * when it is sound, else what is wrong. Does not check the CRC.
     */
    static String checkHeader(ByteBuffer buffer, int index) {
        byte magic = buffer.get(index + MAGIC_OFFSET);
        if (magic != MAGIC) {
            return "unknown magic " + magic + " (expected " + MAGIC + ")";
        }
        int lastOffsetDelta = buffer.getInt(index + LAST_OFFSET_DELTA_OFFSET);
        int count = recordCount(buffer, index);
        if (lastOffsetDelta < 0 || count < 0 || count > lastOffsetDelta + 1L) {
            return "record count " + count + " does not fit last offset delta " + lastOffsetDelta;
        }
        if (baseOffset(buffer, index) < 0) {
            return "negative base offset " + baseOffset(buffer, index);
        }
        return null;
    }
}
