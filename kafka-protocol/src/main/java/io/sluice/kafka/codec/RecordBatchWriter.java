package io.sluice.kafka.codec;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

import org.apache.kafka.common.utils.ByteUtils;

import io.sluice.storage.Crc32c;
import io.sluice.storage.RecordBatchVisitor;
import io.sluice.storage.RecordFlyweight;

/**
 * Writes stream records as Kafka record batches (magic 2, uncompressed, CreateTime, no producer),
 * what a Fetch response carries. The layout is Kafka's ({@code DefaultRecordBatch}):
 * <pre>
 *  baseOffset int64 | length int32 | partitionLeaderEpoch int32 | magic int8 = 2 | crc uint32 |
 *  attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 | maxTimestamp int64 |
 *  producerId int64 = -1 | producerEpoch int16 = -1 | baseSequence int32 = -1 | recordCount int32 | records
 * </pre>
 * The CRC-32C covers attributes to the end. A record is: length varint, attributes int8 = 0,
 * timestampDelta varlong, offsetDelta varint, key (varint length, -1 for none), value (same),
 * header count varint, headers (key: varint length and UTF-8, value: varint length, -1 for none).
 * Offsets may have gaps (compaction); the deltas carry them.
 *
 * <p>It is the visitor of a storage read ({@link io.sluice.streams.Stream#read(int, long, int, int, Consumer)}),
 * writing into one growing array. A stored batch whose records are already Kafka records
 * ({@link #acceptBatch}) becomes one batch of its own: a header, its records copied in one piece, a
 * CRC. Records handed out one by one ({@link #accept}) are written straight from the storage's bytes
 * into a batch of their own, their key, value and headers copied once and nothing allocated per
 * record (the storage hands headers out in the encoding above); the next whole batch, or
 * {@link #finish}, closes that batch. One writer per answer; one thread.
 */
public final class RecordBatchWriter implements RecordBatchVisitor {
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
    /** Largest first allocation: a larger answer grows into its size instead of being reserved up front. */
    private static final int MAX_INITIAL_BYTES = 4 << 20;

    private final int leaderEpoch;
    private final CRC32C crc = new CRC32C();
    private byte[] out;
    private int size;
    private int count;
    /** The batch of records written one by one, open until a whole batch or the end: its index, -1 for none. */
    private int openBatch = -1;
    private int openCount;
    private long baseOffset;
    private long baseTimestamp;
    private long maxTimestamp;
    private long lastOffset;

    /**
     * A writer for batches of about {@code payloadBytes} bytes of keys, values and headers, stamped
     * with {@code leaderEpoch}: the array starts a quarter larger, for the records' framing (at most
     * {@value #MAX_INITIAL_BYTES} bytes), and grows when the guess was short.
     */
    public RecordBatchWriter(long payloadBytes, int leaderEpoch) {
        this.leaderEpoch = leaderEpoch;
        long estimate = HEADER_SIZE + Math.max(payloadBytes, 0) * 5 / 4;
        out = new byte[(int) Math.min(estimate, MAX_INITIAL_BYTES)];
    }

    /** Appends one record to the open batch, opening one if needed; the first one sets its base offset and timestamp. */
    @Override
    public void accept(RecordFlyweight record) {
        if (openBatch < 0) {
            ensureRoom(HEADER_SIZE);
            openBatch = size;
            size += HEADER_SIZE;
            openCount = 0;
            baseOffset = record.offset();
            baseTimestamp = record.timestamp();
            maxTimestamp = baseTimestamp;
        }
        long offsetDelta = record.offset() - baseOffset;
        long timestampDelta = record.timestamp() - baseTimestamp;
        int keyLength = record.keyLength();
        int valueLength = record.valueLength();
        int headersSize = record.headersSize();
        int body = 1 + ByteUtils.sizeOfVarlong(timestampDelta) + ByteUtils.sizeOfVarint((int) offsetDelta)
                + fieldSize(keyLength) + fieldSize(valueLength) + headersSize;
        ensureRoom(ByteUtils.sizeOfVarint(body) + body);
        int at = writeVarint(out, size, body);
        out[at++] = 0;
        at = writeVarlong(out, at, timestampDelta);
        at = writeVarint(out, at, (int) offsetDelta);
        at = writeVarint(out, at, keyLength);
        record.copyKey(out, at);
        at += Math.max(keyLength, 0);
        at = writeVarint(out, at, valueLength);
        record.copyValue(out, at);
        at += Math.max(valueLength, 0);
        record.copyHeaders(out, at);
        size = at + headersSize;
        openCount++;
        count++;
        lastOffset = record.offset();
        maxTimestamp = Math.max(maxTimestamp, record.timestamp());
    }

    /**
     * Closes the open batch, then writes the stored batch as one Kafka batch, its records copied as
     * they are and its CRC made from theirs.
     */
    @Override
    public void acceptBatch(long baseOffset, int lastOffsetDelta, long firstTimestamp, long maxTimestamp, int recordCount,
                            ByteBuffer records, int recordsCrc) {
        closeOpenBatch();
        int length = records.remaining();
        ensureRoom(HEADER_SIZE + length);
        records.get(records.position(), out, size + RECORDS, length);
        writeHeader(size, size + HEADER_SIZE + length, baseOffset, lastOffsetDelta, firstTimestamp, maxTimestamp, recordCount);
        writeCrc(size, Crc32c.combine(crc(size + ATTRIBUTES, size + RECORDS), recordsCrc, length));
        size += HEADER_SIZE + length;
        count += recordCount;
    }

    /** Records written so far. */
    public int count() {
        return count;
    }

    /** Every batch written (at least one record in all), headers and CRCs filled in. */
    public ByteBuffer finish() {
        if (count == 0) {
            throw new IllegalStateException("a record batch needs at least one record");
        }
        closeOpenBatch();
        return ByteBuffer.wrap(out, 0, size);
    }

    private void closeOpenBatch() {
        if (openBatch >= 0) {
            writeHeader(openBatch, size, baseOffset, (int) (lastOffset - baseOffset), baseTimestamp, maxTimestamp, openCount);
            writeCrc(openBatch, crc(openBatch + ATTRIBUTES, size));
            openBatch = -1;
        }
    }

    /** Fills in the header of the batch at {@code start}, whose records end at {@code end}, but for the CRC. */
    private void writeHeader(int start, int end, long base, int lastOffsetDelta, long firstTimestamp, long maxTime,
                             int records) {
        ByteBuffer batch = ByteBuffer.wrap(out, start, HEADER_SIZE).slice();
        batch.putLong(BASE_OFFSET, base);
        batch.putInt(LENGTH, end - start - PARTITION_LEADER_EPOCH);
        batch.putInt(PARTITION_LEADER_EPOCH, leaderEpoch);
        batch.put(MAGIC, (byte) 2);
        batch.putShort(ATTRIBUTES, (short) 0);
        batch.putInt(LAST_OFFSET_DELTA, lastOffsetDelta);
        batch.putLong(BASE_TIMESTAMP, firstTimestamp);
        batch.putLong(MAX_TIMESTAMP, maxTime);
        batch.putLong(PRODUCER_ID, -1L);
        batch.putShort(PRODUCER_EPOCH, (short) -1);
        batch.putInt(BASE_SEQUENCE, -1);
        batch.putInt(RECORD_COUNT, records);
    }

    private int crc(int from, int to) {
        crc.reset();
        crc.update(out, from, to - from);
        return (int) crc.getValue();
    }

    private void writeCrc(int start, int value) {
        ByteUtils.writeUnsignedInt(ByteBuffer.wrap(out), start + CRC, value & 0xFFFFFFFFL);
    }

    private void ensureRoom(int bytes) {
        if (out.length - size < bytes) {
            out = Arrays.copyOf(out, (int) Math.min(Integer.MAX_VALUE - 8, Math.max((long) size + bytes, out.length * 2L)));
        }
    }

    private static int fieldSize(int length) {
        return length < 0 ? ByteUtils.sizeOfVarint(-1) : ByteUtils.sizeOfVarint(length) + length;
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
