package io.sluice.storage.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

import io.sluice.storage.Header;

import org.junit.jupiter.api.Test;

class RecordBatchTest {

    private static ByteBuffer copy(ByteBuffer sealed) {
        ByteBuffer copy = ByteBuffer.allocate(sealed.remaining());
        copy.put(sealed.duplicate()).flip();
        return copy;
    }

    @Test
    void sealedBatchCarriesHeaderFieldsAndRecordsRoundTrip() {
        RecordBatchBuilder builder = new RecordBatchBuilder(4096);
        builder.append(100, 5000, "k".getBytes(), "v1".getBytes(), "a/b".getBytes(StandardCharsets.UTF_8), List.of(), List.of());
        builder.append(101, 4990, null, "v2".getBytes(), null, List.of("x", "ünï"),
                List.of(new Header("h", "1".getBytes()), new Header("none", null)));
        builder.append(102, 5020, "dead".getBytes(), null, null, List.of(), List.of());
        ByteBuffer batch = copy(builder.seal());

        assertEquals(batch.remaining(), RecordBatch.sizeInBytes(batch, 0));
        assertEquals(100, RecordBatch.baseOffset(batch, 0));
        assertEquals(102, RecordBatch.lastOffset(batch, 0));
        assertEquals(5000, RecordBatch.firstTimestamp(batch, 0));
        assertEquals(5020, RecordBatch.maxTimestamp(batch, 0));
        assertEquals(3, RecordBatch.recordCount(batch, 0));
        assertEquals(RecordBatch.storedCrc(batch, 0), RecordBatch.computeCrc(batch, 0, new CRC32C()));
        assertNull(RecordBatch.checkHeader(batch, 0));

        RecordView view = new RecordView();
        int end = batch.remaining();
        assertTrue(RecordBatch.hasKafkaRecords(batch, 0), "new batches hold Kafka records");
        int at = view.enterBatch(batch, 0);
        assertEquals(RecordBatch.KAFKA_HEADER_SIZE, at);
        at = view.parseNext(at);
        assertEquals(100, view.offset());
        assertEquals(5000, view.timestamp());
        assertArrayEquals("k".getBytes(), view.key());
        assertArrayEquals("v1".getBytes(), view.value());
        assertEquals(List.of("a/b"), view.tags());
        assertTrue(view.hasTag("a/b".getBytes(StandardCharsets.UTF_8)));
        at = view.parseNext(at);
        assertEquals(4990, view.timestamp());
        assertFalse(view.hasKey());
        assertEquals(List.of("x", "ünï"), view.tags());
        assertTrue(view.hasTag("ünï".getBytes(StandardCharsets.UTF_8)), "tags are found in a record with headers");
        assertEquals(List.of(new Header("h", "1".getBytes()), new Header("none", null)), view.headers());
        assertEquals(List.of(), new RecordView().headers());
        at = view.parseNext(at);
        assertEquals(102, view.offset());
        assertTrue(view.hasKey());
        assertFalse(view.hasValue());
        assertEquals(List.of(), view.tags());
        assertEquals(RecordBatch.recordsEnd(batch, 0), at);
        assertTrue(at < end, "the tags section follows the records");
    }

    @Test
    void flippingAnyByteAfterTheLengthFailsTheHeaderCheckOrTheCrc() {
        RecordBatchBuilder builder = new RecordBatchBuilder(4096);
        for (int i = 0; i < 5; i++) {
            builder.append(7 + i, 1000 + i, ("key" + i).getBytes(), ("value" + i).getBytes(), "t".getBytes(StandardCharsets.UTF_8),
                    List.of(), List.of());
        }
        ByteBuffer batch = copy(builder.seal());
        CRC32C crc = new CRC32C();
        for (int position = RecordBatch.CRC_OFFSET; position < batch.limit(); position++) {
            batch.put(position, (byte) (batch.get(position) ^ 0x01));
            boolean detected = RecordBatch.checkHeader(batch, 0) != null
                    || RecordBatch.computeCrc(batch, 0, crc) != RecordBatch.storedCrc(batch, 0);
            assertTrue(detected, "a flipped bit at byte " + position + " went unnoticed");
            batch.put(position, (byte) (batch.get(position) ^ 0x01));
        }
    }

    @Test
    void varintsRoundTripAtTheEdges() {
        ByteBuffer buffer = ByteBuffer.allocate(16);
        Varint.Reader reader = new Varint.Reader();
        for (int value : new int[] {0, -1, 1, 63, -64, 64, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            buffer.clear();
            Varint.writeInt(value, buffer);
            assertEquals(Varint.sizeOfInt(value), buffer.position());
            reader.reset(buffer.array(), 0, buffer.position());
            assertEquals(value, reader.readInt());
            assertEquals(0, reader.remaining());
        }
        for (long value : new long[] {0, -1, 1L << 40, Long.MAX_VALUE, Long.MIN_VALUE}) {
            buffer.clear();
            Varint.writeLong(value, buffer);
            assertEquals(Varint.sizeOfLong(value), buffer.position());
            reader.reset(buffer.array(), 0, buffer.position());
            assertEquals(value, reader.readLong());
            assertEquals(0, reader.remaining());
        }
    }

    @Test
    void aVarintThatRunsPastItsLimitOrTooLongIsMalformed() {
        Varint.Reader reader = new Varint.Reader();
        byte[] continued = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01};
        reader.reset(continued, 0, 2);
        assertThrows(IllegalArgumentException.class, reader::readInt, "past the limit");
        reader.reset(continued, 0, continued.length);
        assertThrows(IllegalArgumentException.class, reader::readInt, "six bytes");
    }

    @Test
    void utf8EncodingMatchesTheJdkForAnyText() {
        Random random = new Random(42);
        ByteBuffer buffer = ByteBuffer.allocate(1024);
        for (int round = 0; round < 500; round++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(20); i > 0; i--) {
                text.append((char) random.nextInt(0x10000));
            }
            String s = text.toString();
            byte[] expected = s.getBytes(StandardCharsets.UTF_8);
            buffer.clear();
            Utf8.encode(s, buffer);
            assertEquals(expected.length, Utf8.encodedLength(s), s);
            byte[] actual = new byte[buffer.position()];
            buffer.flip().get(actual);
            assertArrayEquals(expected, actual);
        }
        assertNotEquals(0, Utf8.encodedLength("\uD83D\uDE00"));
    }
}
