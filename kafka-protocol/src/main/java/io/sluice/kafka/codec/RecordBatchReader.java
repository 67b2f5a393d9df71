package io.sluice.kafka.codec;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.CloseableIterator;

import io.sluice.storage.Header;
import io.sluice.storage.Record;
import io.sluice.streams.ProducerBatch;

/**
 * Reads the record batches of one Produce partition into stream records, checking each batch as
 * Kafka's log validator does: magic 2, a valid CRC, no control or transactional batch, CreateTime,
 * a record count that matches the offset range, producer fields that make sense, timestamps that
 * are not negative (a record without one, -1, gets the time it is read here), keys where the stream
 * is compacted. Compressed batches (gzip, snappy, lz4,
 * zstd) are decompressed by kafka-clients' codecs; what they expand to is bounded, so that a small
 * request cannot inflate into an unbounded amount of memory.
 */
public final class RecordBatchReader {

    /** One batch: its records, copied out of the request, and its producer (null when not idempotent). */
    public record Batch(List<Record> records, ProducerBatch producer) {
    }

    private RecordBatchReader() {
    }

    /**
     * @param maxBytes  the most key, value and header bytes all batches may expand to
     * @param needsKeys whether every record must have a key (a compacted stream)
     */
    public static List<Batch> read(MemoryRecords records, int maxBytes, boolean needsKeys) throws ProduceException {
        List<Batch> batches = new ArrayList<>(1);
        long[] budget = {maxBytes};
        for (MutableRecordBatch batch : records.batches()) {
            batches.add(read(batch, budget, needsKeys));
        }
        if (batches.isEmpty()) {
            throw new ProduceException(Errors.INVALID_RECORD, "a produce request partition without a record batch");
        }
        return batches;
    }

    private static Batch read(MutableRecordBatch batch, long[] budget, boolean needsKeys) throws ProduceException {
        check(batch);
        long appendTime = System.currentTimeMillis();
        int count = lastOffsetDelta(batch) + 1;
        List<Record> records = new ArrayList<>(count);
        try (CloseableIterator<org.apache.kafka.common.record.internal.Record> it =
                     batch.streamingIterator(BufferSupplier.NO_CACHING)) {
            while (it.hasNext()) {
                records.add(copy(it.next(), budget, needsKeys, appendTime));
            }
        } catch (InvalidRecordException | CorruptRecordException | IllegalArgumentException e) {
            throw new ProduceException(Errors.CORRUPT_MESSAGE, "a record batch does not decode: " + e.getMessage());
        }
        if (records.size() != count) {
            throw new ProduceException(Errors.INVALID_RECORD, "a record batch declares " + count + " records by its"
                    + " offsets but holds " + records.size());
        }
        ProducerBatch producer = batch.hasProducerId()
                ? new ProducerBatch(batch.producerId(), batch.producerEpoch(), batch.baseSequence(), count) : null;
        return new Batch(records, producer);
    }

    private static void check(MutableRecordBatch batch) throws ProduceException {
        if (batch.magic() != RecordBatch.MAGIC_VALUE_V2) {
            throw new ProduceException(Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT, "record batch magic " + batch.magic()
                    + " is not supported; only magic 2 (Kafka 0.11 and later)");
        }
        try {
            batch.ensureValid();
        } catch (CorruptRecordException e) {
            throw new ProduceException(Errors.CORRUPT_MESSAGE, e.getMessage());
        }
        if (batch.isControlBatch()) {
            throw new ProduceException(Errors.INVALID_RECORD, "producers may not write control batches");
        }
        if (batch.isTransactional()) {
            throw new ProduceException(Errors.INVALID_REQUEST, "transactions are not supported");
        }
        if (batch.timestampType() == TimestampType.LOG_APPEND_TIME) {
            throw new ProduceException(Errors.INVALID_TIMESTAMP, "producers may not set LogAppendTime");
        }
        int delta = lastOffsetDelta(batch);
        if (delta < 0 || batch.countOrNull() == null || batch.countOrNull() != delta + 1) {
            throw new ProduceException(Errors.INVALID_RECORD, "record count " + batch.countOrNull()
                    + " does not match last offset delta " + delta);
        }
        if (batch.hasProducerId() && batch.baseSequence() < 0) {
            throw new ProduceException(Errors.INVALID_RECORD, "producer id " + batch.producerId()
                    + " without a base sequence");
        }
    }

    private static int lastOffsetDelta(MutableRecordBatch batch) {
        long delta = batch.lastOffset() - batch.baseOffset();
        return delta > Integer.MAX_VALUE ? -1 : (int) delta;
    }

    private static Record copy(org.apache.kafka.common.record.internal.Record record, long[] budget, boolean needsKeys,
                               long appendTime) throws ProduceException {
        long timestamp = record.timestamp();
        if (timestamp == RecordBatch.NO_TIMESTAMP) {
            timestamp = appendTime; // Kafka keeps -1; a stream record needs a time, and this is the closest there is
        } else if (timestamp < 0) {
            throw new ProduceException(Errors.INVALID_TIMESTAMP, "record timestamp " + timestamp + " is negative");
        }
        if (needsKeys && !record.hasKey()) {
            throw new ProduceException(Errors.INVALID_RECORD, "the topic is compacted: every record needs a key");
        }
        byte[] key = bytes(record.key(), budget);
        byte[] value = bytes(record.value(), budget);
        return new Record(key, value, timestamp, List.of(), headers(record.headers(), budget));
    }

    private static List<Header> headers(org.apache.kafka.common.header.Header[] kafkaHeaders, long[] budget) {
        if (kafkaHeaders.length == 0) {
            return List.of();
        }
        List<Header> headers = new ArrayList<>(kafkaHeaders.length);
        for (org.apache.kafka.common.header.Header header : kafkaHeaders) {
            budget[0] -= header.key().length() + (header.value() == null ? 0 : header.value().length);
            headers.add(new Header(header.key(), header.value()));
        }
        return headers;
    }

    private static byte[] bytes(ByteBuffer buffer, long[] budget) throws ProduceException {
        if (buffer == null) {
            return null;
        }
        budget[0] -= buffer.remaining();
        if (budget[0] < 0) {
            throw new ProduceException(Errors.MESSAGE_TOO_LARGE, "the request's records expand to more than"
                    + " max_request_size allows");
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
