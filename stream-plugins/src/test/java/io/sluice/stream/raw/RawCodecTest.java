package io.sluice.stream.raw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.stream.CaptureBatch;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.CommandException;
import io.sluice.stream.PluginSettings;
import io.sluice.stream.QueryCommand;
import io.sluice.stream.RecordCollector;
import io.sluice.stream.StreamCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RawCodecTest {

    private final StreamCodec codec = new RawPlugin().open(PluginSettings.none("ex"));

    private static CaptureBatch batch() {
        long[] ts = {100, 100, 105};
        long[] offsets = {7, 8, 9};
        String[] topics = {"a/b", "t\u00e9", "a/b"};
        byte[][] payloads = {"x".getBytes(StandardCharsets.UTF_8), new byte[0], new byte[] {1, 2, 3}};
        return new CaptureBatch(ts, offsets, topics, payloads, 0, 3);
    }

    @Test
    void encodeSharesTheCaptureArrays() {
        CaptureBatch capture = batch();
        ColumnBatch encoded = codec.encode(capture.slice(1, 3));
        assertEquals(RawCodec.SCHEMA, encoded.schema());
        assertEquals(2, encoded.rows());
        assertEquals(8, encoded.longs("offset").get(1));
        assertSame(capture.payload(2), encoded.binaries("data").get(2));
    }

    @Test
    void defaultColumnsAreTsAndData() throws CommandException {
        QueryCommand command = codec.parseCommand("sync-0-200");
        assertEquals(List.of("ts", "data"), command.columns());
        assertTrue(command.sync());
    }

    @Test
    void tsDataRecordIsTsLenData() throws CommandException {
        RecordCollector sink = new RecordCollector();
        codec.decode(codec.encode(batch()), codec.parseCommand("sync-0-200"), sink);
        ByteBuffer bytes = ByteBuffer.wrap(sink.bytes());
        assertEquals(3, sink.records());
        assertEquals(RawRecordDescriptor.recordLength(1) + RawRecordDescriptor.recordLength(0) + RawRecordDescriptor.recordLength(3),
                bytes.capacity());
        int at = 0;
        assertEquals(100, RawRecordDescriptor.ts(bytes, at));
        assertEquals(1, RawRecordDescriptor.dataLength(bytes, at));
        assertEquals('x', bytes.get(at + RawRecordDescriptor.DATA_OFFSET));
        at = RawRecordDescriptor.nextRecord(bytes, at);
        assertEquals(0, RawRecordDescriptor.dataLength(bytes, at));
        at = RawRecordDescriptor.nextRecord(bytes, at);
        assertEquals(105, RawRecordDescriptor.ts(bytes, at));
        assertEquals(3, RawRecordDescriptor.dataLength(bytes, at));
        assertEquals(bytes.capacity(), RawRecordDescriptor.nextRecord(bytes, at));
    }

    @Test
    void allFieldsInRequestedOrderFollowTheDocumentedLayout() throws CommandException {
        RecordCollector sink = new RecordCollector();
        QueryCommand command = codec.parseCommand("async-0-200-topic,offset,data,ts");
        assertEquals(List.of("topic", "offset", "data", "ts"), command.storedColumns());
        codec.decode(codec.encode(batch()).slice(1, 2), command, sink);
        byte[] topic = "t\u00e9".getBytes(StandardCharsets.UTF_8);
        ByteBuffer expected = ByteBuffer.allocate(2 + topic.length + 8 + 4 + 8);
        expected.putShort((short) topic.length).put(topic).putLong(8).putInt(0).putLong(100);
        assertArrayEquals(expected.array(), sink.bytes());
    }

    @Test
    void unknownOrRepeatedColumnsAreBadColumns() {
        assertEquals(CommandException.BAD_COLUMNS,
                assertThrows(CommandException.class, () -> codec.parseCommand("sync-1-2-ts,payload")).code());
        assertEquals(CommandException.BAD_COLUMNS,
                assertThrows(CommandException.class, () -> codec.parseCommand("sync-1-2-ts,ts")).code());
        assertEquals(CommandException.BAD_COLUMNS,
                assertThrows(CommandException.class, () -> codec.parseCommand("sync-1-2-ts,")).code());
    }

    @Test
    void rawTakesNoSettings() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RawPlugin().open(new PluginSettings("ex", Map.of("fields", List.of()))));
        assertTrue(e.getMessage().startsWith("plugin.fields: "), e.getMessage());
    }
}
