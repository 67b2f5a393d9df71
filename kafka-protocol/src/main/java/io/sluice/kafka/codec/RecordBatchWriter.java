package io.sluice.kafka.codec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;

import org.apache.kafka.common.utils.ByteUtils;

import io.sluice.storage.Header;
import io.sluice.storage.Record;
import io.sluice.storage.StoredRecord;

/**
 * Writes stream records as one Kafka record batch (magic 2, uncompressed, CreateTime, no producer),
 * what a Fetch response carries. The layout is Kafka's ({@code DefaultRecordBatch}):
 * <pre>
 *  baseOffset int64 | length int32 | partitionLeaderEpoch int32 | magic int8 = 2 | crc uint32 |
 *  attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 | maxTimestamp int64 |
 *  producerId int64 = -1 | producerEpoch int16 = -1 | baseSequence int32 = -1 | recordCount int32 | records
 * </pre>
 * The CRC-32C covers attributes to the end. A record is: length varint, attributes int8 = 0,
 * timestampDelta varlong, offsetDelta varint, key (varint length, -1 for none), value (same),
 * header count varint, headers (key: varint length and UTF-8, value: varint length, -1 for none).
 * Offsets may have gaps (compaction); the deltas carry them. Every record's size is computed once,
 * first, and the batch written straight into one exactly sized array.
 */
public final class RecordBatchWriter {
    static final int BASE_OFFSET = 0;
    static final int LENGTH = 8;
    static final int PARTITION_LEADER_EPOCH = 12;
    static final int MAGIC = 16;
    static final int CRC = 17;
    static final int ATTRIBUTES = 21;
    static final int LAST_OFFSET_DELTA = 23;
    static final int BASE_TIMESTAMP = 27;
    static final int MAX_TIMESTAMP = 35;
    static final int PRODUCER_ID = 43;
    static final int PRODUCER_EPOCH = 51;
    static final int BASE_SEQUENCE = 53;
    static final int RECORD_COUNT = 57;
    static final int RECORDS = 61;
    /** Bytes before the first record. */
    public static final int HEADER_SIZE = RECORDS;

    private RecordBatchWriter() {
    }

    /** One batch holding {@code records} (at least one, in offset order). */
    public static ByteBuffer write(List<StoredRecord> records, int leaderEpoch) {
        long baseOffset = records.get(0).offset();
        long baseTimestamp = records.get(0).timestamp();
        int[] bodies = new int[records.size()];
        int size = HEADER_SIZE;
        long maxTimestamp = baseTimestamp;
        for (int i = 0; i < bodies.length; i++) {
            StoredRecord stored = records.get(i);
            int body = bodySize(stored.record(), stored.offset() - baseOffset, stored.timestamp() - baseTimestamp);
            bodies[i] = body;
            size += ByteUtils.sizeOfVarint(body) + body;
            maxTimestamp = Math.max(maxTimestamp, stored.timestamp());
        }
        byte[] out = new byte[size];
        ByteBuffer batch = ByteBuffer.wrap(out);
        batch.putLong(BASE_OFFSET, baseOffset);
        batch.putInt(LENGTH, size - PARTITION_LEADER_EPOCH);
        batch.putInt(PARTITION_LEADER_EPOCH, leaderEpoch);
        batch.put(MAGIC, (byte) 2);
        batch.putShort(ATTRIBUTES, (short) 0);
        batch.putInt(LAST_OFFSET_DELTA, (int) (records.get(records.size() - 1).offset() - baseOffset));
        batch.putLong(BASE_TIMESTAMP, baseTimestamp);
        batch.putLong(MAX_TIMESTAMP, maxTimestamp);
        batch.putLong(PRODUCER_ID, -1L);
        batch.putShort(PRODUCER_EPOCH, (short) -1);
        batch.putInt(BASE_SEQUENCE, -1);
        batch.putInt(RECORD_COUNT, records.size());
        int at = RECORDS;
        for (int i = 0; i < bodies.length; i++) {
            StoredRecord stored = records.get(i);
            at = writeRecord(out, at, bodies[i], stored.record(), stored.offset() - baseOffset,
                    stored.timestamp() - baseTimestamp);
        }
        CRC32C crc = new CRC32C();
        crc.update(out, ATTRIBUTES, size - ATTRIBUTES);
        ByteUtils.writeUnsignedInt(batch, CRC, crc.getValue());
        return batch;
    }

    private static int bodySize(Record record, long offsetDelta, long timestampDelta) {
        int size = 1 + ByteUtils.sizeOfVarlong(timestampDelta) + ByteUtils.sizeOfVarint((int) offsetDelta)
                + fieldSize(record.key()) + fieldSize(record.value());
        List<Header> headers = record.headers();
        size += ByteUtils.sizeOfVarint(headers.size());
        for (int i = 0; i < headers.size(); i++) {
            Header header = headers.get(i);
            size += utf8Size(header.key()) + fieldSize(header.value());
        }
        return size;
    }

    private static int fieldSize(byte[] bytes) {
        return bytes == null ? ByteUtils.sizeOfVarint(-1) : ByteUtils.sizeOfVarint(bytes.length) + bytes.length;
    }

    private static int utf8Size(String text) {
        int length = utf8Length(text);
        return ByteUtils.sizeOfVarint(length) + length;
    }

    /** UTF-8 length without encoding: header names are short and mostly ASCII. */
    private static int utf8Length(String text) {
        int length = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                length++;
            } else if (c < 0x800) {
                length += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                length += 4;
                i++;
            } else {
                length += 3;
            }
        }
        return length;
    }

    /**
     * Writes one record at {@code at} of {@code out} (sized by {@link #bodySize}); returns the index after it.
     * Straight into the array, as the batch is written once per fetch and its bytes are most of the work.
     */
    private static int writeRecord(byte[] out, int at, int body, Record record, long offsetDelta, long timestampDelta) {
        at = writeVarint(out, at, body);
        out[at++] = 0;
        at = writeVarlong(out, at, timestampDelta);
        at = writeVarint(out, at, (int) offsetDelta);
        at = writeField(out, at, record.key());
        at = writeField(out, at, record.value());
        List<Header> headers = record.headers();
        at = writeVarint(out, at, headers.size());
        for (int i = 0; i < headers.size(); i++) {
            Header header = headers.get(i);
            at = writeUtf8(out, at, header.key());
            at = writeField(out, at, header.value());
        }
        return at;
    }

    private static int writeField(byte[] out, int at, byte[] bytes) {
        if (bytes == null) {
            return writeVarint(out, at, -1);
        }
        at = writeVarint(out, at, bytes.length);
        System.arraycopy(bytes, 0, out, at, bytes.length);
        return at + bytes.length;
    }

    /** A header name: its UTF-8 length as a varint, then its bytes (ASCII without encoding anything). */
    private static int writeUtf8(byte[] out, int at, String text) {
        int length = utf8Length(text);
        at = writeVarint(out, at, length);
        if (length == text.length()) {
            for (int i = 0; i < length; i++) {
                out[at + i] = (byte) text.charAt(i);
            }
            return at + length;
        }
        byte[] encoded = text.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(encoded, 0, out, at, encoded.length);
        return at + encoded.length;
    }

    /** Kafka's varint: zig-zag, then 7 bits a byte, low first. */
    private static int writeVarint(byte[] out, int at, int value) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & 0xFFFFFF80) != 0) {
            out[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[at++] = (byte) v;
        return at;
    }

    /** Kafka's varlong: zig-zag, then 7 bits a byte, low first. */
    private static int writeVarlong(byte[] out, int at, long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0) {
            out[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[at++] = (byte) v;
        return at;
    }
}
