package io.sluice.storage.segment;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;

import io.sluice.storage.Record;
import io.sluice.storage.RecordFlyweight;
import io.sluice.storage.StoredRecord;

/**
 * One record on its own, in the segment engine's record encoding (layout in {@link RecordBatch})
 * with offset delta 0 and the absolute timestamp as the timestamp delta: the value format of the
 * RocksDB engine, so both engines share one encoder and one decoder.
 */
public final class RecordCodec {
    private RecordCodec() {
    }

    /** The record's bytes. */
    public static byte[] encode(Record record) {
        byte[] bytes = new byte[RecordBatchBuilder.recordSize(0, record.timestamp(), record.key(), record.value(), null,
                record.tags(), record.headers())];
        RecordBatchBuilder.writeRecord(ByteBuffer.wrap(bytes), 0, record.timestamp(), record.key(), record.value(), null,
                record.tags(), record.headers());
        return bytes;
    }

    /**
     * The record {@link #encode} wrote.
     *
     * @throws IllegalArgumentException when the bytes do not hold one record
     */
    public static Record decode(byte[] bytes) {
        RecordView view = new RecordView();
        int end = view.parse(ByteBuffer.wrap(bytes), 0, bytes.length, 0, 0);
        if (end != bytes.length) {
            throw new IllegalArgumentException("record of " + end + " bytes followed by " + (bytes.length - end) + " more");
        }
        return view.toRecord();
    }

    /**
     * Hands each record to {@code visitor} as a {@link RecordFlyweight} over its encoding: how an
     * engine that keeps records as objects serves a visiting read.
     */
    public static void visit(List<StoredRecord> records, Consumer<RecordFlyweight> visitor) {
        RecordView view = new RecordView();
        for (StoredRecord stored : records) {
            byte[] bytes = encode(stored.record());
            // The encoding's offset delta is 0, so the stored offset is the base.
            view.parse(ByteBuffer.wrap(bytes), 0, bytes.length, stored.offset(), 0);
            visitor.accept(view);
        }
    }
}
