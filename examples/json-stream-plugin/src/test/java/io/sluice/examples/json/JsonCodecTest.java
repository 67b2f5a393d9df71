package io.sluice.examples.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.stream.BooleanVector;
import io.sluice.stream.CaptureBatch;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnType;
import io.sluice.stream.CommandException;
import io.sluice.stream.DoubleVector;
import io.sluice.stream.LongVector;
import io.sluice.stream.PluginSettings;
import io.sluice.stream.QueryCommand;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class JsonCodecTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final long ALL = Long.MAX_VALUE;

    private final JsonCodec codec = (JsonCodec) new JsonPlugin().open(new PluginSettings("cars",
            Map.of("fields", List.of("speed:double", "vin:string", "ok:boolean", "count:long", "engine.rpm:double"))));

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static CaptureBatch batch(String... payloads) {
        byte[][] bytes = new byte[payloads.length][];
        for (int i = 0; i < payloads.length; i++) {
            bytes[i] = utf8(payloads[i]);
        }
        return batch(bytes);
    }

    private static CaptureBatch batch(byte[]... payloads) {
        int n = payloads.length;
        long[] ts = new long[n];
        long[] offsets = new long[n];
        String[] topics = new String[n];
        for (int i = 0; i < n; i++) {
            ts[i] = T0 + i;
            offsets[i] = 10 + i;
            topics[i] = "cars/" + i;
        }
        return new CaptureBatch(ts, offsets, topics, payloads, 0, n);
    }

    private byte[] decode(ColumnBatch rows, String command) throws CommandException {
        Collector sink = new Collector();
        codec.decode(rows, codec.parseCommand(command), sink);
        return sink.bytes();
    }

    private static DoubleVector doubles(ColumnBatch batch, String name) {
        return (DoubleVector) batch.vector(name);
    }

    @Test
    void fieldsBecomeTypedNullableColumnsBesideTheKeys() {
        ColumnBatch encoded = codec.encode(batch(
                "{\"speed\": 21.5, \"vin\": \"WVW1\", \"ok\": true, \"count\": 7, \"engine\": {\"rpm\": 3000, \"temp\": 90},"
                        + " \"extra\": [1, {\"speed\": 0}]}"));
        assertEquals(List.of("ts", "offset", "topic", "speed", "vin", "ok", "count", "engine_rpm", "raw"),
                encoded.schema().columns().stream().map(c -> c.name()).toList());
        assertEquals(ColumnType.DOUBLE, encoded.schema().column("speed").type());
        assertTrue(encoded.schema().column("speed").nullable());
        assertEquals(21.5, doubles(encoded, "speed").get(0));
        assertEquals("WVW1", encoded.strings("vin").get(0));
        assertTrue(((BooleanVector) encoded.vector("ok")).get(0));
        assertEquals(7, encoded.longs("count").get(0));
        assertEquals(3000.0, doubles(encoded, "engine_rpm").get(0), "an integer is a fine double; nested members are found");
        assertNull(encoded.binaries("raw").get(0), "nothing kept raw when every field was found");
        assertEquals("cars/0", encoded.strings("topic").get(0));
    }

    @Test
    void aMissingFieldKeepsTheRawPayloadAndTheOtherFields() {
        CaptureBatch capture = batch("{\"speed\": 3, \"vin\": \"X\", \"ok\": false, \"count\": 1}");
        ColumnBatch encoded = codec.encode(capture.forWrite());
        assertSame(capture.payload(0), encoded.binaries("raw").get(0));
        assertEquals(3.0, doubles(encoded, "speed").get(0));
        assertTrue(encoded.vector("engine_rpm").isNull(0));
        assertEquals(1, codec.counter(JsonCounter.MISSING_FIELDS));
        assertEquals(0, codec.counter(JsonCounter.WRONG_TYPES));
    }

    @Test
    void jsonNullIsANullValueButANullObjectMeansItsFieldsAreMissing() {
        ColumnBatch encoded = codec.encode(batch(
                "{\"speed\": null, \"vin\": null, \"ok\": null, \"count\": null, \"engine\": {\"rpm\": null}}",
                "{\"speed\": 1, \"vin\": \"V\", \"ok\": true, \"count\": 2, \"engine\": null}"));
        assertNull(encoded.binaries("raw").get(0), "every field was given, as null");
        assertTrue(encoded.vector("speed").isNull(0));
        assertNull(encoded.strings("vin").get(0));
        assertTrue(encoded.vector("engine_rpm").isNull(1));
        assertTrue(encoded.binaries("raw").get(1) != null, "engine.rpm is missing under a null engine");
    }

    @Test
    void valuesOfTheWrongTypeAreNullAndKeepTheRawPayload() {
        String[] payloads = {
            "{\"speed\": \"fast\", \"vin\": \"V\", \"ok\": true, \"count\": 1, \"engine\": {\"rpm\": 1}}",
            "{\"speed\": 1, \"vin\": 42, \"ok\": true, \"count\": 1, \"engine\": {\"rpm\": 1}}",
            "{\"speed\": 1, \"vin\": \"V\", \"ok\": \"true\", \"count\": 1, \"engine\": {\"rpm\": 1}}",
            "{\"speed\": 1, \"vin\": \"V\", \"ok\": true, \"count\": 1.5, \"engine\": {\"rpm\": 1}}",
            "{\"speed\": 1, \"vin\": \"V\", \"ok\": true, \"count\": 99999999999999999999, \"engine\": {\"rpm\": 1}}",
            "{\"speed\": 1, \"vin\": \"V\", \"ok\": true, \"count\": 1, \"engine\": 5}",
            "{\"speed\": {\"value\": 1}, \"vin\": \"V\", \"ok\": true, \"count\": 1, \"engine\": {\"rpm\": [1]}}",
        };
        CaptureBatch capture = batch(payloads);
        ColumnBatch encoded = codec.encode(capture.forWrite());
        for (int i = 0; i < payloads.length; i++) {
            assertSame(capture.payload(i), encoded.binaries("raw").get(i), payloads[i]);
        }
        assertTrue(encoded.vector("speed").isNull(0));
        assertNull(encoded.strings("vin").get(1));
        assertTrue(encoded.vector("ok").isNull(2));
        assertTrue(encoded.vector("count").isNull(3));
        assertTrue(encoded.vector("count").isNull(4));
        assertTrue(encoded.vector("engine_rpm").isNull(5));
        assertEquals("V", encoded.strings("vin").get(6), "the other fields are kept");
        assertEquals(payloads.length, codec.counter(JsonCounter.WRONG_TYPES));
        assertEquals(0, codec.counter(JsonCounter.MISSING_FIELDS), "a mistyped field is not also missing");
    }

    @Test
    void payloadsThatAreNotOneJsonObjectAreKeptRawWithEveryFieldNull() {
        byte[][] payloads = {
            utf8("speed=21.5"),
            utf8("[{\"speed\": 1}]"),
            utf8("{\"speed\": 1, \"vin\": \"V\", \"ok\": true, \"count\": 1, \"engine\": {\"rpm\": 1}"),
            utf8("{\"speed\": 1, \"vin\": \"V\", \"ok\": true, \"count\": 1, \"engine\": {\"rpm\": 1}} {}"),
            {'{', '"', 'v', 'i', 'n', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'},
            new byte[0],
            utf8("42"),
        };
        CaptureBatch capture = batch(payloads);
        ColumnBatch encoded = codec.encode(capture.forWrite());
        for (int i = 0; i < payloads.length; i++) {
            assertSame(capture.payload(i), encoded.binaries("raw").get(i), "payload " + i);
            assertTrue(encoded.vector("speed").isNull(i), "no field of payload " + i);
            assertNull(encoded.strings("vin").get(i), "no field of payload " + i);
        }
        assertEquals(payloads.length, codec.counter(JsonCounter.NOT_JSON));
        assertEquals(0, codec.counter(JsonCounter.MISSING_FIELDS));
    }

    @Test
    void countersCountOnlyTheWrite() {
        CaptureBatch capture = batch("nope", "{}");
        codec.encode(capture);
        codec.encode(capture.slice(1, 2));
        assertEquals(Map.of(JsonCounter.NOT_JSON, 0L, JsonCounter.MISSING_FIELDS, 0L, JsonCounter.WRONG_TYPES, 0L), codec.counters());
        codec.encode(capture.forWrite());
        assertEquals(Map.of(JsonCounter.NOT_JSON, 1L, JsonCounter.MISSING_FIELDS, 1L, JsonCounter.WRONG_TYPES, 0L), codec.counters());
    }

    @Test
    void theDocumentedRecordComesOutByteForByte() throws CommandException {
        JsonCodec small = (JsonCodec) new JsonPlugin().open(new PluginSettings("cars",
                Map.of("fields", List.of("speed:double", "vin:string", "ok:boolean"))));
        Collector sink = new Collector();
        ColumnBatch encoded = small.encode(batch("{\"speed\":21.5,\"vin\":\"WVW1\",\"ok\":true}"));
        small.decode(encoded, small.parseCommand("sync-0-" + ALL), sink);
        byte[] expected = {0x00, 0x00, 0x01, (byte) 0x8B, (byte) 0xCF, (byte) 0xE5, 0x68, 0x00,
            0x01, 0x40, 0x35, (byte) 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x01, 0x00, 0x00, 0x00, 0x04, 0x57, 0x56, 0x57, 0x31,
            0x01, 0x01,
            0x00};
        assertArrayEquals(expected, sink.bytes());
    }

    @Test
    void theDefaultRecordHoldsEveryFieldThenRawAndSelectionsFollowTheirOrder() throws CommandException {
        String missing = "{\"speed\": 2.5, \"vin\": \"B\", \"ok\": false, \"count\": -3}";
        ColumnBatch encoded = codec.encode(batch(
                "{\"speed\": 1.25, \"vin\": \"\u00c5\", \"ok\": true, \"count\": 9007199254740993, \"engine\": {\"rpm\": 800.5}}",
                missing));
        byte[] first = new Records().ts(T0).number(1.25).text("\u00c5").flag(true).number(9007199254740993L).number(800.5)
                .absent().toBytes();
        byte[] second = new Records().ts(T0 + 1).number(2.5).text("B").flag(false).number(-3L).absent().bytes(utf8(missing))
                .toBytes();
        Collector sink = new Collector();
        codec.decode(encoded, codec.parseCommand("async-0-" + ALL), sink);
        assertEquals(2, sink.records);
        assertArrayEquals(concat(first, second), sink.bytes());

        byte[] selected = new Records().ts(T0 + 1).bytes(utf8(missing)).number(11L).text("cars/1").absent().number(2.5).toBytes();
        assertArrayEquals(selected, decode(encoded.slice(1, 2), "sync-0-" + ALL + "-raw,offset,topic,engine_rpm,speed"));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    @Test
    void slicesEncodeTheSameRowsAsTheWholeBatch() throws CommandException {
        String[] payloads = new String[50];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = i % 7 == 0 ? "broken " + i
                    : "{\"speed\": " + i + ".5, \"vin\": \"V" + i + "\", \"ok\": " + (i % 2 == 0) + ", \"count\": " + i
                    + (i % 5 == 0 ? "" : ", \"engine\": {\"rpm\": " + (i * 100) + "}") + "}";
        }
        CaptureBatch capture = batch(payloads);
        byte[] whole = decode(codec.encode(capture), "sync-0-" + ALL + "-topic,speed,vin,ok,count,engine_rpm,raw,offset");
        byte[] sliced = concat(decode(codec.encode(capture.slice(0, 13)), "sync-0-" + ALL + "-topic,speed,vin,ok,count,engine_rpm,raw,offset"),
                decode(codec.encode(capture.slice(13, 50)), "sync-0-" + ALL + "-topic,speed,vin,ok,count,engine_rpm,raw,offset"));
        assertArrayEquals(whole, sliced);
        LongVector offsets = codec.encode(capture.slice(13, 50)).longs("offset");
        assertEquals(23, offsets.get(0), "rows of a slice are numbered from 0");
    }

    @Test
    void columnListsAreChecked() throws CommandException {
        QueryCommand command = codec.parseCommand("sync-1-2-vin,offset");
        assertEquals(List.of("vin", "offset"), command.columns());
        assertEquals(command.columns(), command.storedColumns());
        assertEquals(List.of("speed", "vin", "ok", "count", "engine_rpm", "raw"), codec.parseCommand("sync-1-2").columns());
        for (String bad : List.of("sync-1-2-ts", "sync-1-2-vin,vin", "sync-1-2-engine.rpm", "sync-1-2-vin,")) {
            CommandException e = assertThrows(CommandException.class, () -> codec.parseCommand(bad), bad);
            assertEquals(CommandException.BAD_COLUMNS, e.code(), bad);
        }
        assertEquals("unknown column 'ts'; this exchange has speed, vin, ok, count, engine_rpm, raw, offset, topic",
                assertThrows(CommandException.class, () -> codec.parseCommand("sync-1-2-ts")).reason());
        assertFalse(codec.parseCommand("async-1-2").sync());
    }

    @Test
    void counterNamesAreDistinctStableMetricNames() {
        List<String> names = Stream.of(JsonCounter.values()).map(JsonCounter::metricName).toList();
        assertEquals(names.size(), new HashSet<>(names).size(), "duplicate metric names in " + names);
        for (String name : names) {
            assertTrue(name.matches("json_[a-z0-9_]*_total"), name);
        }
    }
}
