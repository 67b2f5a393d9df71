package io.sluice.stream.spi;

import static io.sluice.stream.spi.Frames.bytes;
import static io.sluice.stream.spi.Frames.concat;
import static io.sluice.stream.spi.Frames.frame;
import static io.sluice.stream.spi.Frames.row;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.stream.BinaryVector;
import io.sluice.stream.CaptureBatch;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnType;
import io.sluice.stream.CommandException;
import io.sluice.stream.PluginRegistry;
import io.sluice.stream.PluginSettings;
import io.sluice.stream.QueryCommand;
import io.sluice.stream.RecordCollector;
import io.sluice.stream.raw.RawRecordDescriptor;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SpiCodecTest {

    private static final long T0 = 1_700_000_000_000L;

    private final SpiCodec codec = (SpiCodec) PluginRegistry.withBuiltIns().plugin(SpiPlugin.ID).open(PluginSettings.none("spi-test"));

    private static CaptureBatch batch(byte[]... payloads) {
        int n = payloads.length;
        long[] ts = new long[n];
        long[] offsets = new long[n];
        String[] topics = new String[n];
        for (int i = 0; i < n; i++) {
            ts[i] = T0 + i;
            offsets[i] = 100 + i;
            topics[i] = "car/" + i;
        }
        return new CaptureBatch(ts, offsets, topics, payloads, 0, n);
    }

    private byte[] decode(ColumnBatch rows, String command) throws CommandException {
        RecordCollector sink = new RecordCollector();
        codec.decode(rows, codec.parseCommand(command), sink);
        return sink.bytes();
    }

    @Test
    void encodingGivesOneNullableColumnPerSignalHoldingFlagsAndPayload() {
        byte[] first = concat(frame(0x0a2b, true, 1, 2, 3), frame(0x0001, false));
        byte[] second = frame(0xffff, false, 9);
        ColumnBatch encoded = codec.encode(batch(first, second));

        assertEquals(List.of(Column.TS, Column.OFFSET, SpiCodec.TOPIC, Column.nullable("0001", ColumnType.BINARY),
                Column.nullable("0a2b", ColumnType.BINARY), Column.nullable("ffff", ColumnType.BINARY)), encoded.schema().columns());
        assertArrayEquals(bytes(0x83, 1, 2, 3), encoded.binaries("0a2b").get(0));
        assertArrayEquals(bytes(0x00), encoded.binaries("0001").get(0));
        assertNull(encoded.binaries("ffff").get(0));
        assertArrayEquals(bytes(0x01, 9), encoded.binaries("ffff").get(1));
        assertEquals("car/1", encoded.strings("topic").get(1));
        assertEquals(101, encoded.longs("offset").get(1));
    }

    @Test
    void decodedRowMatchesTheDocumentedExample() throws CommandException {
        byte[] payload = concat(frame(0x0a2b, false, 1, 2), frame(0x0001, true, 0x2A));
        byte[] expected = bytes(0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00, 0x00, 0x0B,
                0x55, 0x00, 0x01, 0x81, 0x2A, 0x55, 0x0A, 0x2B, 0x02, 0x01, 0x02);
        assertArrayEquals(expected, decode(codec.encode(batch(payload)), "sync-0-" + Long.MAX_VALUE));
        ByteBuffer buffer = ByteBuffer.wrap(expected);
        assertEquals(T0, SpiRowDescriptor.ts(buffer, 0));
        assertEquals(11, SpiRowDescriptor.rowLength(buffer, 0));
        assertEquals(expected.length, SpiRowDescriptor.nextRow(buffer, 0));
    }

    @Test
    void selectionKeepsRequestedSignalsInAscendingTypeidAndLeavesOutRowsWithoutAny() throws CommandException {
        byte[] a = frame(0x0001, false, 7);
        byte[] b = frame(0x1a2b, true, 8, 8);
        byte[] c = frame(0x0300, false);
        ColumnBatch encoded = codec.encode(batch(concat(c, b, a), concat(c), concat(b)));

        assertArrayEquals(concat(row(T0, a, b), row(T0 + 2, b)), decode(encoded, "sync-0-" + Long.MAX_VALUE + "-1A2B0001"));
        assertArrayEquals(concat(row(T0, a, c, b), row(T0 + 1, c), row(T0 + 2, b)), decode(encoded, "sync-0-" + Long.MAX_VALUE));
        assertArrayEquals(new byte[0], decode(encoded, "sync-0-" + Long.MAX_VALUE + "-ffff"));
    }

    @Test
    void aRepeatedTypeidKeepsItsLastFrameAndIsCountedOnlyWhenWritten() throws CommandException {
        byte[] early = frame(0x0042, false, 1);
        byte[] late = frame(0x0042, true, 2, 2);
        byte[] other = frame(0x0043, false);
        CaptureBatch capture = batch(concat(early, other, late, early, late));

        ColumnBatch viewed = codec.encode(capture);
        assertEquals(0, codec.counter(SpiCounter.REPEATED_SIGNALS), "a query's encoding counts nothing");
        codec.encode(capture.forWrite());
        assertEquals(3, codec.counter(SpiCounter.REPEATED_SIGNALS), "three frames were replaced");
        assertEquals(Map.of(SpiCounter.MALFORMED_PAYLOADS, 0L, SpiCounter.REPEATED_SIGNALS, 3L), codec.counters());
        assertArrayEquals(row(T0, late, other), decode(viewed, "sync-0-" + Long.MAX_VALUE));
    }

    @Test
    void malformedPayloadsAreKeptWholeInRawCountedAndReturnedByTheRawSelection() throws CommandException {
        byte[] valid = frame(0x0001, false, 5);
        List<byte[]> malformed = List.of(
                bytes(0x54, 0x00, 0x01, 0x00),                              // wrong magic
                concat(valid, bytes(0x55, 0x00)),                           // trailing bytes: a cut header
                concat(valid, bytes(0x55, 0x00, 0x02, 0x03, 1, 2)),         // frame declares 3, has 2
                concat(valid, bytes(0x00)),                                 // one trailing byte
                new byte[SpiPayload.MAX_LENGTH + 1]);                      // too long for a row
        List<byte[]> payloads = new ArrayList<>(malformed);
        payloads.add(valid);
        payloads.add(new byte[0]);
        CaptureBatch capture = batch(payloads.toArray(new byte[0][]));

        ColumnBatch encoded = codec.encode(capture.forWrite());
        assertEquals(malformed.size(), codec.counter(SpiCounter.MALFORMED_PAYLOADS));
        BinaryVector raw = encoded.binaries("raw");
        for (int i = 0; i < malformed.size(); i++) {
            assertSame(malformed.get(i), raw.get(i), "payload " + i + " kept as it was");
            assertNull(encoded.binaries("0001").get(i), "a malformed payload has no signal values");
            assertTrue(SpiPayload.describeDefect(malformed.get(i)) != null);
        }
        assertNull(raw.get(malformed.size()));
        assertNull(raw.get(malformed.size() + 1), "an empty payload is valid SPI without signals");

        assertArrayEquals(row(T0 + malformed.size(), valid), decode(encoded, "sync-0-" + Long.MAX_VALUE));
        ByteBuffer records = ByteBuffer.wrap(decode(encoded, "sync-0-" + Long.MAX_VALUE + "-raw"));
        int at = 0;
        for (int i = 0; i < malformed.size(); i++) {
            assertEquals(T0 + i, RawRecordDescriptor.ts(records, at));
            byte[] data = new byte[RawRecordDescriptor.dataLength(records, at)];
            records.get(at + RawRecordDescriptor.DATA_OFFSET, data);
            assertArrayEquals(malformed.get(i), data);
            at = RawRecordDescriptor.nextRecord(records, at);
        }
        assertEquals(records.capacity(), at);
    }

    @Test
    void defectsAreDescribedWithTheirPosition() {
        assertEquals("byte 0x54 at position 0 of 4 where a frame must start with 0x55",
                SpiPayload.describeDefect(bytes(0x54, 0x00, 0x01, 0x00)));
        assertEquals("2 trailing bytes at position 5 of 7, fewer than a 4-byte frame header",
                SpiPayload.describeDefect(concat(frame(1, false, 5), bytes(0x55, 0x00))));
        assertEquals("frame of typeid 0002 at position 0 declares 3 payload bytes but only 2 follow",
                SpiPayload.describeDefect(bytes(0x55, 0x00, 0x02, 0x83, 1, 2)));
        assertNull(SpiPayload.describeDefect(new byte[0]));
    }

    @Test
    void slicesEncodeTheSameRowsAsTheWholeBatch() throws CommandException {
        Random random = new Random(42);
        byte[][] payloads = new byte[300][];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = randomPayload(random);
        }
        CaptureBatch capture = batch(payloads);
        for (String command : List.of("sync-0-" + Long.MAX_VALUE, "sync-0-" + Long.MAX_VALUE + "-raw",
                "sync-0-" + Long.MAX_VALUE + "-00030001f00f")) {
            byte[] whole = decode(codec.encode(capture), command);
            byte[] sliced = concat(decode(codec.encode(capture.slice(0, 17)), command),
                    decode(codec.encode(capture.slice(17, 200)), command), decode(codec.encode(capture.slice(200, 300)), command));
            assertArrayEquals(whole, sliced, command);
            assertArrayEquals(expected(capture, command), whole, command);
        }
    }

    /** Random signals of a few typeids, sometimes repeated, sometimes broken. */
    private static byte[] randomPayload(Random random) {
        int[] typeids = {0x0001, 0x0002, 0x0003, 0xf00f};
        List<byte[]> frames = new ArrayList<>();
        int count = random.nextInt(5);
        for (int f = 0; f < count; f++) {
            byte[] payload = new byte[random.nextInt(6)];
            random.nextBytes(payload);
            frames.add(frame(typeids[random.nextInt(typeids.length)], random.nextBoolean(), payload));
        }
        byte[] payload = concat(frames.toArray(new byte[0][]));
        if (payload.length > 0 && random.nextInt(8) == 0) {
            payload[random.nextInt(payload.length)] ^= 0x55;
        }
        return payload;
    }

    /** What a decode must give, from a model: the last frame of each typeid, selected, in typeid order. */
    private static byte[] expected(CaptureBatch capture, String command) {
        String list = command.split("-").length > 3 ? command.split("-")[3] : null;
        List<byte[]> rows = new ArrayList<>();
        for (int r = capture.start(); r < capture.end(); r++) {
            byte[] payload = capture.payload(r);
            TreeMap<Integer, byte[]> signals = model(payload);
            if ("raw".equals(list)) {
                if (signals == null) {
                    rows.add(ByteBuffer.allocate(12 + payload.length).putLong(capture.ts(r)).putInt(payload.length).put(payload).array());
                }
                continue;
            }
            if (signals == null) {
                continue;
            }
            if (list != null) {
                List<String> wanted = new ArrayList<>();
                for (int at = 0; at < list.length(); at += 4) {
                    wanted.add(list.substring(at, at + 4).toLowerCase(java.util.Locale.ROOT));
                }
                signals.keySet().removeIf(t -> !wanted.contains(String.format("%04x", t)));
            }
            if (!signals.isEmpty()) {
                rows.add(row(capture.ts(r), signals.values().toArray(new byte[0][])));
            }
        }
        return concat(rows.toArray(new byte[0][]));
    }

    /** Frames by typeid, the last one of each; null when the payload is not valid SPI. */
    private static TreeMap<Integer, byte[]> model(byte[] payload) {
        TreeMap<Integer, byte[]> signals = new TreeMap<>();
        int at = 0;
        while (at < payload.length) {
            if (payload.length - at < 4 || payload[at] != 0x55 || payload.length - at < 4 + (payload[at + 3] & 0x7F)) {
                return null;
            }
            int length = 4 + (payload[at + 3] & 0x7F);
            byte[] frame = new byte[length];
            System.arraycopy(payload, at, frame, 0, length);
            signals.put(((payload[at + 1] & 0xFF) << 8) | (payload[at + 2] & 0xFF), frame);
            at += length;
        }
        return signals;
    }

    @Test
    void signalListsAreCheckedAndNormalised() throws CommandException {
        QueryCommand command = codec.parseCommand("async-1-2-F00F0a2B0001");
        assertEquals(List.of("0001", "0a2b", "f00f"), command.columns());
        assertEquals(command.columns(), command.storedColumns());
        assertTrue(codec.parseCommand("sync-1-2").readsAllColumns(), "no list reads every signal");
        assertEquals(List.of("raw"), codec.parseCommand("sync-1-2-raw").storedColumns());
        for (String bad : List.of("sync-1-2-0a2", "sync-1-2-0a2g", "sync-1-2-0a2b0A2B", "sync-1-2-raw0001", "sync-1-2-0a2b,0001")) {
            CommandException e = assertThrows(CommandException.class, () -> codec.parseCommand(bad), bad);
            assertEquals(CommandException.BAD_COLUMNS, e.code(), bad);
        }
        assertEquals("typeid '0a2g' at position 0 of the signal list is not 4 hex digits",
                assertThrows(CommandException.class, () -> codec.parseCommand("sync-1-2-0a2g")).reason());
    }

    @Test
    void spiTakesNoSettings() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SpiPlugin().open(new PluginSettings("ex", Map.of("fields", List.of()))));
        assertTrue(e.getMessage().startsWith("plugin.fields: "), e.getMessage());
    }

    @Test
    void frameDescriptorReadsTheFieldsOfTheDocumentedExample() {
        byte[] frame = bytes(0x55, 0x1A, 0x2B, 0x83, 1, 2, 3);
        assertEquals(0x1a2b, SpiFrameDescriptor.typeid(frame, 0));
        assertEquals(1, SpiFrameDescriptor.type(0x1a2b));
        assertEquals(0xa2b, SpiFrameDescriptor.id(0x1a2b));
        assertTrue(SpiFrameDescriptor.isUpdate(SpiFrameDescriptor.flags(frame, 0)));
        assertEquals(3, SpiFrameDescriptor.payloadLength(frame, 0));
        assertEquals(frame.length, SpiFrameDescriptor.frameLength(frame, 0));
        assertEquals("1a2b", SignalColumn.name(0x1a2b));
        assertEquals(-1, SignalColumn.typeid("1A2B"));
        assertEquals(-1, SignalColumn.typeid("data"));
    }
}
