package io.sluice.kafka.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.storage.Header;
import io.sluice.storage.LogSettings;
import io.sluice.storage.Record;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageAdapter;
import io.sluice.storage.StoredRecord;
import io.sluice.storage.segment.RecordCodec;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A written batch is what kafka-clients' own reader accepts: valid CRC, every field back as written.
 * The records reach the writer as a fetch's do: one by one through the storage's own record encoding,
 * or whole stored batches from the segment engine.
 */
class RecordBatchWriterTest {

    @Test
    void kafkaClientsReadBackEveryFieldOfAWrittenBatch() {
        List<StoredRecord> written = new ArrayList<>();
        long base = 1_000_000_000_000L;
        for (int i = 0; i < 300; i++) {
            byte[] key = i % 3 == 0 ? null : ("sensors/ä/" + i).getBytes(StandardCharsets.UTF_8);
            byte[] value = i % 7 == 0 ? null : new byte[i * 37 % 2000];
            List<Header> headers = i % 2 == 0 ? List.of() : List.of(new Header("mqtt.qos", new byte[] {'1'}),
                    new Header("größe", null), new Header("k" + i, "v".repeat(i).getBytes(StandardCharsets.UTF_8)));
            // Offsets with gaps (compaction) and timestamps going back and forth.
            written.add(new StoredRecord(5 + i * 3L, new Record(key, value, base + (i % 5) * 1000 - 2000, List.of(),
                    headers)));
        }
        MemoryRecords records = MemoryRecords.readableRecords(write(written, 7));
        Iterator<MutableRecordBatch> batches = records.batches().iterator();
        MutableRecordBatch batch = batches.next();
        batch.ensureValid();
        assertEquals(7, batch.partitionLeaderEpoch());
        assertEquals(5, batch.baseOffset());
        assertEquals(5 + 299 * 3, batch.lastOffset());
        int i = 0;
        for (org.apache.kafka.common.record.internal.Record read : batch) {
            Record expected = written.get(i).record();
            assertEquals(written.get(i).offset(), read.offset());
            assertEquals(expected.timestamp(), read.timestamp());
            assertArrayEquals(expected.key(), bytes(read.key()), "key " + i);
            assertArrayEquals(expected.value(), bytes(read.value()), "value " + i);
            assertEquals(expected.headers().size(), read.headers().length);
            for (int h = 0; h < read.headers().length; h++) {
                assertEquals(expected.headers().get(h).key(), read.headers()[h].key());
                assertArrayEquals(expected.headers().get(h).value(), read.headers()[h].value());
            }
            i++;
        }
        assertEquals(written.size(), i);
        assertEquals(false, batches.hasNext());
    }

    /** Writes the records as a fetch does: visited as the storage hands them out, into a writer sized too small. */
    private static ByteBuffer write(List<StoredRecord> records, int leaderEpoch) {
        RecordBatchWriter writer = new RecordBatchWriter(16, leaderEpoch, UnpooledByteBufAllocator.DEFAULT);
        RecordCodec.visit(records, writer);
        assertEquals(records.size(), writer.count());
        return copy(writer.finish());
    }

    /** The written bytes, the writer's buffer released. */
    private static ByteBuffer copy(ByteBuf written) {
        try {
            return ByteBuffer.wrap(ByteBufUtil.getBytes(written));
        } finally {
            written.release();
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    /**
     * Stored batches go out whole: the records of several appends, each its own Kafka batch, from
     * a fetch offset inside the first one; tags stay out of the records and every CRC holds.
     */
    @Test
    void storedBatchesAreSentWholeAsValidKafkaBatches(@TempDir Path dir) {
        List<Record> written = new ArrayList<>();
        try (StorageAdapter adapter = StorageAdapter.open(dir)) {
            adapter.createShard("s_0", ShardSettings.segment(LogSettings.defaults()));
            for (int append = 0; append < 4; append++) {
                List<Record> records = new ArrayList<>();
                for (int i = 0; i < 25; i++) {
                    int n = append * 25 + i;
                    List<Header> headers = n % 2 == 0 ? List.of() : List.of(new Header("mqtt.qos", new byte[] {'1'}));
                    records.add(new Record(n % 3 == 0 ? null : ("k" + n).getBytes(StandardCharsets.UTF_8),
                            ("v" + n).getBytes(StandardCharsets.UTF_8), 1_000 + n, n % 5 == 0 ? List.of("tag" + n) : List.of(),
                            headers));
                }
                adapter.batchWrite("s_0", records);
                written.addAll(records);
            }
            RecordBatchWriter writer = new RecordBatchWriter(16, 3, UnpooledByteBufAllocator.DEFAULT);
            adapter.readByOffset("s_0", 30, 1000, 1 << 20, writer);
            assertEquals(75, writer.count(), "the batch holding offset 30 goes whole, from offset 25");
            int batchCount = 0;
            long next = 25;
            for (MutableRecordBatch batch : MemoryRecords.readableRecords(copy(writer.finish())).batches()) {
                batch.ensureValid();
                assertEquals(next, batch.baseOffset());
                for (org.apache.kafka.common.record.internal.Record read : batch) {
                    Record expected = written.get((int) read.offset());
                    assertEquals(next++, read.offset());
                    assertEquals(expected.timestamp(), read.timestamp());
                    assertArrayEquals(expected.key(), bytes(read.key()));
                    assertArrayEquals(expected.value(), bytes(read.value()));
                    assertEquals(expected.headers().size(), read.headers().length, "no tag shows as a header");
                }
                batchCount++;
            }
            assertEquals(100, next);
            assertEquals(3, batchCount);
        }
    }

    @Test
    void aNullValueIsNullNotEmpty() {
        var batch = MemoryRecords.readableRecords(write(List.of(new StoredRecord(0,
                new Record("k".getBytes(StandardCharsets.UTF_8), null, 1, List.of()))), 0)).batches().iterator().next();
        assertNull(batch.iterator().next().value());
    }
}
