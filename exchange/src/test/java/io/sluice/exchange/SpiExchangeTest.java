package io.sluice.exchange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.parquet.DuckDb;
import io.sluice.testing.Eventually;
import io.sluice.parquet.ParquetSettings;
import io.sluice.parquet.StoreCounter;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.stream.CaptureBatch;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.CommandException;
import io.sluice.stream.DecodeSink;
import io.sluice.stream.PluginRegistry;
import io.sluice.stream.PluginSettings;
import io.sluice.stream.QueryCommand;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.StreamPlugin;
import io.sluice.stream.spi.SpiCounter;
import io.sluice.stream.spi.SpiPlugin;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SPI plugin through a real exchange: offered payloads come back from queries byte for byte,
 * with signal selection and with malformed payloads, the same from the ring, from batches queued
 * for the writer and from Parquet files; DuckDB reads the files.
 *
 * <p>The messages come from a model ({@link #signals}) rather than from parsing, so the expected
 * bytes are built independently of the codec: message i carries signal 0001 always, 0a2b when
 * i % 3 != 0, 1fff (127 payload bytes) for 30 <= i < 40 only, f00f (empty, update) when
 * i % 5 == 0, a second 0001 frame when i % 11 == 5 (it wins), nothing at all for i = 44; and
 * every message with i % 7 == 3 is broken in one of three ways.
 */
class SpiExchangeTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final int MESSAGES = 60;
    private static final long ALL = Long.MAX_VALUE;
    private static final List<String> COMMANDS = List.of("sync-0-" + ALL, "async-0-" + ALL + "-0A2B0001", "sync-0-" + ALL + "-1fff",
            "sync-0-" + ALL + "-raw", "async-" + (T0 + 5) + "-" + (T0 + 25), "sync-" + (T0 + 5) + "-" + (T0 + 25) + "-raw");

    @TempDir
    Path dir;

    /** One signal of a message as published. */
    private record Signal(int typeid, boolean update, byte[] payload) {
        byte[] frame() {
            return ByteBuffer.allocate(4 + payload.length).put((byte) 0x55).putShort((short) typeid)
                    .put((byte) ((update ? 0x80 : 0) | payload.length)).put(payload).array();
        }
    }

    private static List<Signal> signals(int i) {
        List<Signal> signals = new ArrayList<>();
        if (i == 44) {
            return signals;
        }
        if (i % 3 != 0) {
            signals.add(new Signal(0x0a2b, false, ("v" + i).getBytes(StandardCharsets.US_ASCII)));
        }
        if (i >= 30 && i < 40) {
            byte[] wide = new byte[127];
            Arrays.fill(wide, (byte) i);
            signals.add(new Signal(0x1fff, i % 2 == 1, wide));
        }
        signals.add(new Signal(0x0001, i % 2 == 0, new byte[] {(byte) i}));
        if (i % 5 == 0) {
            signals.add(new Signal(0xf00f, true, new byte[0]));
        }
        if (i % 11 == 5) {
            signals.add(new Signal(0x0001, true, new byte[] {(byte) i, (byte) i}));
        }
        return signals;
    }

    private static boolean malformed(int i) {
        return i % 7 == 3;
    }

    private static byte[] payload(int i) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        signals(i).forEach(s -> out.writeBytes(s.frame()));
        byte[] valid = out.toByteArray();
        if (!malformed(i)) {
            return valid;
        }
        switch ((i / 7) % 3) {
            case 0:
                valid[0] = 0x54;
                return valid;
            case 1:
                return Arrays.copyOf(valid, valid.length - 1);
            default:
                return ByteBuffer.allocate(valid.length + 2).put(valid).put((byte) 0x55).put((byte) 0x01).array();
        }
    }

    private static long ts(int i) {
        return T0 + i / 2;
    }

    /** The reply a command must get: built from the model, not from the codec. */
    private static byte[] expected(String command) {
        String[] parts = command.split("-");
        long start = Long.parseLong(parts[1]);
        long end = Long.parseLong(parts[2]);
        String list = parts.length > 3 ? parts[3].toLowerCase() : null;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < MESSAGES; i++) {
            if (ts(i) < start || ts(i) > end) {
                continue;
            }
            if ("raw".equals(list)) {
                if (malformed(i)) {
                    byte[] p = payload(i);
                    out.writeBytes(ByteBuffer.allocate(12 + p.length).putLong(ts(i)).putInt(p.length).put(p).array());
                }
                continue;
            }
            if (malformed(i)) {
                continue;
            }
            TreeMap<Integer, byte[]> last = new TreeMap<>();
            for (Signal s : signals(i)) {
                if (list == null || list.contains(String.format("%04x", s.typeid()))) {
                    last.put(s.typeid(), s.frame());
                }
            }
            if (last.isEmpty()) {
                continue;
            }
            int rowLength = last.values().stream().mapToInt(f -> f.length).sum();
            ByteBuffer row = ByteBuffer.allocate(10 + rowLength).putLong(ts(i)).putShort((short) rowLength);
            last.values().forEach(row::put);
            out.writeBytes(row.array());
        }
        return out.toByteArray();
    }

    private static void offerAll(Exchange exchange) {
        for (int i = 0; i < MESSAGES; i++) {
            assertTrue(exchange.offer("cars/" + (i % 4) + "/spi", payload(i), ts(i)));
        }
    }

    private static byte[] decodeAll(Exchange exchange, String command) throws IOException, CommandException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer[] pending = new ByteBuffer[1];
        DecodeSink sink = length -> {
            if (pending[0] != null) {
                out.writeBytes(pending[0].array());
            }
            pending[0] = ByteBuffer.allocate(length);
            return pending[0];
        };
        try (ExchangeQuery query = exchange.query(command)) {
            while (query.decodeNext(sink)) {
                // every chunk
            }
        }
        if (pending[0] != null) {
            out.writeBytes(pending[0].array());
        }
        return out.toByteArray();
    }

    private static void assertAnswers(Exchange exchange, String place) throws Exception {
        for (String command : COMMANDS) {
            byte[] expected = expected(command);
            assertTrue(expected.length > 0, "the model gives something for " + command);
            assertArrayEquals(expected, decodeAll(exchange, command), place + ": " + command);
        }
    }

    private static long expectedRepeats() {
        long repeats = 0;
        for (int i = 0; i < MESSAGES; i++) {
            if (!malformed(i)) {
                repeats += signals(i).size() - signals(i).stream().mapToInt(Signal::typeid).distinct().count();
            }
        }
        return repeats;
    }

    private static final long MALFORMED = java.util.stream.IntStream.range(0, MESSAGES).filter(SpiExchangeTest::malformed).count();

    private ExchangeSettings settings(String name, int streamType, int cap) {
        return ExchangeSettings.defaults(name, "cars/+/spi", dir.resolve(name).toString()).withStreamType(streamType)
                .withRing(RingSettings.defaults().withCap(cap).withFlushInterval(Duration.ofHours(1)))
                .withParquet(ParquetSettings.defaults(dir.resolve(name).toString()).withQueueBatches(16).withFileRollInterval(Duration.ofMillis(100)).withRetention(Duration.ZERO));
    }

    @Test
    void theRingAnswersByteForByteAndCountsNothingBeforeTheWrite() throws Exception {
        try (Exchange exchange = Exchange.open(settings("ring", SpiPlugin.ID, 1000), PluginRegistry.withBuiltIns())) {
            offerAll(exchange);
            Eventually.await(() -> exchange.status().activeRows() == MESSAGES, () -> exchange.status().toString());
            assertAnswers(exchange, "ring");
            assertEquals(0, exchange.counter(SpiCounter.MALFORMED_PAYLOADS), "queries encoded, nothing was written yet");
        }
    }

    @Test
    void queuedBatchesAnswerByteForByteAndCountOnceWhenWritten() throws Exception {
        GatedSpi gated = new GatedSpi();
        PluginRegistry plugins = PluginRegistry.withBuiltIns();
        plugins.register(gated, "test");
        try (Exchange exchange = Exchange.open(settings("queued", GatedSpi.ID, 10), plugins)) {
            try {
                offerAll(exchange);
                Eventually.await(() -> exchange.status().pendingBatches() == MESSAGES / 10 && exchange.status().activeRows() == 0,
                        () -> exchange.status().toString());
                assertAnswers(exchange, "queued batches");
                assertAnswers(exchange, "queued batches, again");
            } finally {
                gated.permits.release(1000);
            }
            Eventually.await(() -> exchange.counter(StoreCounter.RECORDS_WRITTEN) == MESSAGES, () -> exchange.status().toString());
            assertEquals(MALFORMED, exchange.counter(SpiCounter.MALFORMED_PAYLOADS));
            assertEquals(expectedRepeats(), exchange.counter(SpiCounter.REPEATED_SIGNALS));
        }
    }

    @Test
    void filesAnswerByteForByteAndDuckDbReadsEverySignalColumn() throws Exception {
        ExchangeSettings settings = settings("files", SpiPlugin.ID, 10);
        try (Exchange exchange = Exchange.open(settings, PluginRegistry.withBuiltIns())) {
            offerAll(exchange);
            Eventually.await(() -> exchange.counter(StoreCounter.RECORDS_WRITTEN) == MESSAGES, () -> exchange.status().toString());
            assertEquals(0, exchange.counter(RingCounter.REJECTED_CLOSED));
            assertAnswers(exchange, "files");
            Map<String, Long> counters = exchange.status().counters();
            assertEquals(MALFORMED, counters.get(SpiCounter.MALFORMED_PAYLOADS.metricName()));
            assertEquals(expectedRepeats(), counters.get(SpiCounter.REPEATED_SIGNALS.metricName()));
            assertTrue(expectedRepeats() > 0);
        }
        try (Exchange reopened = Exchange.open(settings, PluginRegistry.withBuiltIns())) {
            assertAnswers(reopened, "files after a restart");
        }
        assertDuckDbReads(dir.resolve("files"));
    }

    /** DuckDB sees ts, offset, topic, one BLOB per signal holding flags | payload, and raw. */
    private static void assertDuckDbReads(Path files) throws Exception {
        List<Object[]> rows = DuckDb.query("SELECT epoch_ms(ts), \"offset\", topic, \"0001\", \"0a2b\", \"1fff\", \"f00f\", raw,"
                + " get_bit(\"0001\"::BIT, 0) AS update_0001, \"0a2b\"[2:] AS payload_0a2b"
                + " FROM read_parquet('" + files + "/*.parquet', union_by_name = true) ORDER BY \"offset\"");
        assertEquals(MESSAGES, rows.size());
        for (int i = 0; i < MESSAGES; i++) {
            Object[] row = rows.get(i);
            assertEquals(ts(i), ((Number) row[0]).longValue());
            assertEquals((long) i, ((Number) row[1]).longValue());
            assertEquals("cars/" + (i % 4) + "/spi", row[2]);
            if (malformed(i)) {
                assertArrayEquals(payload(i), (byte[]) row[7], "raw of " + i);
                for (int c = 3; c <= 6; c++) {
                    assertNull(row[c], "no signal values for malformed message " + i);
                }
                continue;
            }
            assertNull(row[7], "raw of " + i);
            TreeMap<Integer, Signal> last = new TreeMap<>();
            signals(i).forEach(s -> last.put(s.typeid(), s));
            int[] typeids = {0x0001, 0x0a2b, 0x1fff, 0xf00f};
            for (int c = 0; c < typeids.length; c++) {
                Signal s = last.get(typeids[c]);
                byte[] value = s == null ? null : Arrays.copyOfRange(s.frame(), 3, s.frame().length);
                assertArrayEquals(value, (byte[]) row[3 + c], String.format("signal %04x of message %d", typeids[c], i));
            }
            if (last.containsKey(0x0001)) {
                assertEquals(last.get(0x0001).update() ? 1 : 0, ((Number) row[8]).intValue(), "update bit of 0001 in message " + i);
            }
            if (last.containsKey(0x0a2b)) {
                assertArrayEquals(last.get(0x0a2b).payload(), (byte[]) row[9], "payload of 0a2b in message " + i);
            }
        }
    }

    /** SPI under another id whose writer encodes only with a permit, so batches stay queued. */
    private static final class GatedSpi implements StreamPlugin {
        static final int ID = 91;
        final Semaphore permits = new Semaphore(0);

        @Override
        public int id() {
            return ID;
        }

        @Override
        public String name() {
            return "gated-spi";
        }

        @Override
        public StreamCodec open(PluginSettings settings) {
            StreamCodec spi = new SpiPlugin().open(settings);
            return new StreamCodec() {
                @Override
                public ColumnBatch encode(CaptureBatch batch) {
                    if (batch.isWrite()) {
                        permits.acquireUninterruptibly();
                    }
                    return spi.encode(batch);
                }

                @Override
                public QueryCommand parseCommand(String command) throws CommandException {
                    return spi.parseCommand(command);
                }

                @Override
                public void decode(ColumnBatch rows, QueryCommand command, DecodeSink sink) {
                    spi.decode(rows, command, sink);
                }

                @Override
                public Map<io.sluice.stream.PluginCounter, Long> counters() {
                    return spi.counters();
                }
            };
        }
    }
}
