package io.sluice.query.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.query.client.QueryException;
import io.sluice.query.client.Record;
import io.sluice.stream.raw.RawField;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class RawLayoutTest {

    /** docs/plugins.md's example: "21.5" on a/b, ts 1700000000000, offset 7, as ts,offset,topic,data. */
    private static final byte[] EXAMPLE = {
        0x00, 0x00, 0x01, (byte) 0x8B, (byte) 0xCF, (byte) 0xE5, 0x68, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
        0x00, 0x03, 0x61, 0x2F, 0x62,
        0x00, 0x00, 0x00, 0x04, 0x32, 0x31, 0x2E, 0x35,
    };

    @Test
    void theDefaultLayoutIsTsThenData() {
        RawLayout layout = RawLayout.of("sync-1-2");
        assertEquals(List.of(RawField.TS, RawField.DATA), layout.fields());
        ByteBuffer frame = ByteBuffer.allocate(14).putLong(42).putInt(2).put((byte) 'h').put((byte) 'i').flip();
        Record record = layout.read(frame, 0);
        assertEquals(42, record.ts());
        assertArrayEquals("hi".getBytes(), record.data());
        assertEquals(-1, record.offset());
        assertNull(record.topic());
        assertEquals(0, frame.remaining());
    }

    @Test
    void everyFieldDecodesFromTheDocumentedExample() {
        Record record = RawLayout.of("async-1-2-ts,offset,topic,data").read(ByteBuffer.wrap(EXAMPLE), 0);
        assertEquals(1_700_000_000_000L, record.ts());
        assertEquals(7, record.offset());
        assertEquals("a/b", record.topic());
        assertArrayEquals("21.5".getBytes(), record.data());
    }

    @Test
    void fieldsComeInRequestOrder() {
        ByteBuffer frame = ByteBuffer.allocate(13).putInt(1).put((byte) 9).putLong(5).flip();
        Record record = RawLayout.of("sync-1-2-data,offset").read(frame, 0);
        assertEquals(5, record.offset());
        assertArrayEquals(new byte[] {9}, record.data());
        assertEquals(-1, record.ts());
    }

    @Test
    void aFrameEndingInsideARecordIsReportedWithItsPosition() {
        ByteBuffer frame = ByteBuffer.allocate(14).putLong(1).putInt(100).flip();
        QueryException e = assertThrows(QueryException.class, () -> RawLayout.of("sync-1-2").read(frame, 3));
        assertTrue(e.getMessage().contains("frame 3") && e.getMessage().contains("data"), e.getMessage());
    }

    @Test
    void aColumnListThatIsNotRawIsRefusedButABadCommandIsLeftToTheServer() {
        assertThrows(IllegalArgumentException.class, () -> RawLayout.of("sync-1-2-00010a2b"));
        assertEquals(List.of(RawField.TS, RawField.DATA), RawLayout.of("fetch-everything").fields());
    }
}
