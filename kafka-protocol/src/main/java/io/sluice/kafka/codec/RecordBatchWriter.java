package io.sluice.kafka.codec;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

import org.apache.kafka.common.utils.ByteUtils;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

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
 * writing into one growing buffer from the allocator it is given (direct memory, for a fetch, so
 * that the network layer sends it without a copy). A stored batch whose records are already Kafka
 * records ({@link #acceptBatch}) becomes one batch of its own: a header, its records copied in one
 * piece, a CRC made from theirs. Records handed out one by one ({@link #accept}) form a batch of
 * their own, built in a heap array (their key, value and headers copied straight from the
 * storage's bytes, nothing allocated per record: the storage hands headers out in the encoding
 * above) and appended when the next whole batch, or {@link #finish}, closes it. One writer per
 * answer; one thread.
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
    private final ByteBufAllocator allocator;
    private final int initialBytes;
    private final CRC32C crc = new CRC32C();
    /** The header of a whole batch, written here before it goes out. */
    private final byte[] header = new byte[HEADER_SIZE];
    /** The answer, allocated at the first record. */
    private ByteBuf out;
    private int count;
    /** The batch of records written one by one while it is open, its header's room first; {@code size} bytes. */
    private byte[] pending;
    private int size;
    private int openCount;
    private long baseOffset;
    private long baseTimestamp;
    private long maxTimestamp;
    private long lastOffset;

    /**
     * A writer for batches of about {@code payloadBytes} bytes of keys, values and headers, stamped
     * with {@code leaderEpoch}, into a buffer from {@code allocator}: it starts a quarter larger, for
     * the records' framing (at most {@value #MAX_INITIAL_BYTES} bytes), and grows when the guess was short.
     */
    public RecordBatchWriter(long payloadBytes, int leaderEpoch, ByteBufAllocator allocator) {
        this.leaderEpoch = leaderEpoch;
        this.allocator = allocator;
        this.initialBytes = (int) Math.min(HEADER_SIZE + Math.max(payloadBytes, 0) * 5 / 4, MAX_INITIAL_BYTES);
    }

    /** Appends one record to the open batch, opening one if needed; the first one sets its base offset and timestamp. */
    @Override
    public void accept(RecordFlyweight record) {
        if (openCount == 0) {
            size = 0;
            ensureRoom(HEADER_SIZE);
            size = HEADER_SIZE;
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
        int at = writeVarint(pending, size, body);
        pending[at++] = 0;
        at = writeVarlong(pending, at, timestampDelta);
        at = writeVarint(pending, at, (int) offsetDelta);
        at = writeVarint(pending, at, keyLength);
        record.copyKey(pending, at);
        at += Math.max(keyLength, 0);
        at = writeVarint(pending, at, valueLength);
        record.copyValue(pending, at);
        at += Math.max(valueLength, 0);
        record.copyHeaders(pending, at);
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
        writeHeader(header, 0, HEADER_SIZE + length, baseOffset, lastOffsetDelta, firstTimestamp, maxTimestamp, recordCount);
        writeCrc(header, 0, Crc32c.combine(crc(header, ATTRIBUTES, RECORDS), recordsCrc, length));
        output(HEADER_SIZE + length).writeBytes(header).writeBytes(records);
        count += recordCount;
    }

    /** Records written so far. */
    public int count() {
        return count;
    }

    /** Every batch written (at least one record in all), headers and CRCs filled in; the caller releases it. */
    public ByteBuf finish() {
        if (count == 0) {
            throw new IllegalStateException("a record batch needs at least one record");
        }
        closeOpenBatch();
        return out;
    }

    /** Releases what was written, for a read that failed. */
    public void abandon() {
        if (out != null) {
            out.release();
            out = null;
        }
    }

    private void closeOpenBatch() {
        if (openCount > 0) {
            writeHeader(pending, 0, size, baseOffset, (int) (lastOffset - baseOffset), baseTimestamp, maxTimestamp, openCount);
            writeCrc(pending, 0, crc(pending, ATTRIBUTES, size));
            output(size).writeBytes(pending, 0, size);
            openCount = 0;
        }
    }

    /** The answer's buffer, allocated now if need be, with room for {@code bytes} more. */
    private ByteBuf output(int bytes) {
        if (out == null) {
            out = allocator.directBuffer(Math.max(initialBytes, bytes));
        }
        return out.ensureWritable(bytes);
    }

    /** Fills in the header of the batch at {@code start} of {@code array}, whose records end at {@code end}, but for the CRC. */
    private void writeHeader(byte[] array, int start, int end, long base, int lastOffsetDelta, long firstTimestamp,
                             long maxTime, int records) {
        ByteBuffer batch = ByteBuffer.wrap(array, start, HEADER_SIZE).slice();
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

    private int crc(byte[] array, int from, int to) {
        crc.reset();
        crc.update(array, from, to - from);
        return (int) crc.getValue();
    }

    private static void writeCrc(byte[] array, int start, int value) {
        ByteUtils.writeUnsignedInt(ByteBuffer.wrap(array), start + CRC, value & 0xFFFFFFFFL);
    }

    /** Room for {@code bytes} more in the open batch's array. */
    private void ensureRoom(int bytes) {
        if (pending == null) {
            pending = new byte[Math.max(initialBytes, bytes)];
        } else if (pending.length - size < bytes) {
            pending = Arrays.copyOf(pending, (int) Math.min(Integer.MAX_VALUE - 8,
                    Math.max((long) size + bytes, pending.length * 2L)));
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
