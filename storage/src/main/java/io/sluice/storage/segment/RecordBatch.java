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
 *   9      1      attributes       bit 0 ({@value #KAFKA_RECORDS}): Kafka-layout records (below); other bits reserved, 0
 *  10      8      baseOffset       offset of the first record as written
 *  18      4      lastOffsetDelta  last offset - baseOffset as written; kept when compaction drops records
 *  22      8      firstTimestamp   timestamp of the first record as written; base of the timestamp deltas
 *  30      8      maxTimestamp     largest timestamp of the records present, -1 when there are none
 *  38      4      recordCount      records present (0 for the end marker compaction may leave)
 *  42      ...    records          recordCount records, in offset order
 * </pre>
 * A batch with attribute bit 0 ({@value #KAFKA_RECORDS}) has one more header field and keeps its
 * records' tags apart from the records:
 * <pre>
 *  42      4      recordsLength    bytes of the records, which follow
 *  46      ...    records          recordCount records in the Kafka layout below
 *  ...     ...    tags             for each record with tags, in offset order: offsetDelta varint
 *                                  (the record's), tagCount varint (at least 1), tags; to the batch end
 * </pre>
 * Its records region is then, byte for byte, the records of a Kafka v2 record batch with this base
 * offset and first timestamp (Kafka's deltas mean the same, gaps after compaction included), which a
 * fetch sends after a new 61-byte batch header without touching a record; the region's own CRC-32C,
 * taken while the batch's is checked, gives the new header's. The log writes new records in such
 * batches; compaction keeps a batch's layout; batches without the bit (written by earlier versions)
 * read as before, record by record.
 *
 * <p>Example: three records at offsets 100..102 give baseOffset 100 and lastOffsetDelta 2; after
 * compaction removes offset 102 the batch still says lastOffsetDelta 2, so the segment's next
 * offset (103) survives.
 *
 * <p>The CRC covers the base offset, unlike Kafka's, because we never rewrite offsets in place; a
 * flipped bit anywhere but the length field fails the check, and a damaged length either fails it
 * or runs past the end of the file.
 *
 * <h2>Record layout</h2>
 * Without attribute bit 0 ({@value #KAFKA_RECORDS}) on the batch:
 * <pre>
 *  length          varint   bytes after this field
 *  attributes      int8     bit 0 ({@value #HAS_HEADERS}): headers follow the tags; other bits reserved, 0
 *  timestampDelta  varlong  timestamp - firstTimestamp
 *  offsetDelta     varint   offset - baseOffset
 *  keyLength       varint   -1 for no key
 *  key             bytes
 *  valueLength     varint   -1 for no value (with a key: a tombstone)
 *  value           bytes
 *  tagCount        varint
 *  tags            tagCount times: tagLength varint, tag bytes (UTF-8)
 *  headerCount     varint   only with attribute bit 0
 *  headers         headerCount times: keyLength varint, key bytes (UTF-8),
 *                  valueLength varint (-1 for no value), value bytes
 * </pre>
 * A record without headers is written without the header fields and attribute 0, byte for byte as
 * before headers existed. This is also the value format of the RocksDB engine ({@link RecordCodec}).
 *
 * <p>With attribute bit 0 on the batch, a record is a Kafka v2 record ({@code DefaultRecord}), its
 * tags kept in the batch's tags section:
 * <pre>
 *  length          varint   bytes after this field
 *  attributes      int8     0
 *  timestampDelta  varlong  timestamp - firstTimestamp
 *  offsetDelta     varint   offset - baseOffset
 *  keyLength       varint   -1 for no key
 *  key             bytes
 *  valueLength     varint   -1 for no value
 *  value           bytes
 *  headerCount     varint   always present, 0 for none
 *  headers         as above
 * </pre>
 * Varints are zig-zag encoded, as Kafka's are (see {@link Varint}).
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
    /** Bytes before the first record of a batch without {@link #KAFKA_RECORDS}. */
    static final int HEADER_SIZE = RECORDS_OFFSET;
    static final int RECORDS_LENGTH_OFFSET = RECORDS_OFFSET;
    static final int RECORDS_LENGTH_LENGTH = 4;
    /** Bytes before the first record of a batch with {@link #KAFKA_RECORDS}. */
    static final int KAFKA_HEADER_SIZE = RECORDS_LENGTH_OFFSET + RECORDS_LENGTH_LENGTH;
    /** Batch attribute bit: the records are Kafka v2 records, their tags in a section after them. */
    static final byte KAFKA_RECORDS = 0x01;
    /** The only format version this code writes and reads. */
    static final byte MAGIC = 1;
    /** Record attribute bit: the record carries headers after its tags. */
    static final byte HAS_HEADERS = 0x01;
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

    static boolean hasKafkaRecords(ByteBuffer buffer, int index) {
        return (buffer.get(index + ATTRIBUTES_OFFSET) & KAFKA_RECORDS) != 0;
    }

    /** Index of the batch's first record. */
    static int recordsIndex(ByteBuffer buffer, int index) {
        return index + (hasKafkaRecords(buffer, index) ? KAFKA_HEADER_SIZE : HEADER_SIZE);
    }

    /** Index after the batch's last record: its tags section follows in a batch with {@link #KAFKA_RECORDS}. */
    static int recordsEnd(ByteBuffer buffer, int index) {
        return hasKafkaRecords(buffer, index)
                ? index + KAFKA_HEADER_SIZE + buffer.getInt(index + RECORDS_LENGTH_OFFSET)
                : index + sizeInBytes(buffer, index);
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
        byte attributes = buffer.get(index + ATTRIBUTES_OFFSET);
        if ((attributes & ~KAFKA_RECORDS) != 0) {
            return "unknown batch attributes " + attributes;
        }
        if ((attributes & KAFKA_RECORDS) != 0) {
            int size = sizeInBytes(buffer, index);
            int recordsLength = buffer.getInt(index + RECORDS_LENGTH_OFFSET);
            if (size < KAFKA_HEADER_SIZE || recordsLength < 0 || recordsLength > size - KAFKA_HEADER_SIZE) {
                return "records length " + (size < KAFKA_HEADER_SIZE ? "missing" : recordsLength)
                        + " does not fit a batch of " + size + " bytes";
            }
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
