package io.sluice.query;

import io.sluice.testing.Eventually;
import static io.sluice.query.Fixture.T0;
import static io.sluice.query.Fixture.ts;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.exchange.Exchange;
import io.sluice.parquet.StoreCounter;
import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;
import io.sluice.query.client.QueryError;
import io.sluice.query.client.Record;
import io.sluice.stream.raw.RawRecordDescriptor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueryServerTest {

    @TempDir
    Path dir;

    private Fixture fixture;

    @BeforeEach
    void setUp() {
        fixture = new Fixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        fixture.close();
    }

    /** 30 messages in files, 30 in three batches waiting for the writer, 5 in the ring. */
    private Exchange spreadOverFilesQueueAndRing() throws Exception {
        Exchange exchange = fixture.exchange(fixture.gated("spread", 10));
        fixture.gate.allow(3);
        Fixture.offer(exchange, 0, 30);
        Eventually.await(() -> exchange.counter(StoreCounter.RECORDS_WRITTEN) == 30, () -> "three batches in files");
        Fixture.offer(exchange, 30, 65);
        Eventually.await(() -> exchange.status().pendingBatches() == 3 && exchange.status().activeRows() == 5,
                () -> exchange.status().toString());
        return exchange;
    }

    @Test
    void syncAndAsyncRepliesSpanFilesQueuedBatchesAndTheRingRecordByRecord() throws Exception {
        Exchange exchange = spreadOverFilesQueueAndRing();
        ExchangeConsumer consumer = fixture.consumer(fixture.server(exchange));

        Fixture.assertMessages(Fixture.records(consumer, "sync-0-9223372036854775807"), 0, 65);
        Fixture.assertMessages(Fixture.records(consumer, "async-0-9223372036854775807"), 0, 65);
        Fixture.assertMessages(Fixture.records(consumer, "sync-" + (T0 + 7) + "-" + (T0 + 12)), 28, 52);
        Fixture.assertMessages(Fixture.records(consumer, "async-" + (T0 + 7) + "-" + (T0 + 12)), 28, 52);
        Fixture.assertMessages(Fixture.records(consumer, "async-" + (T0 + 16) + "-" + (T0 + 16)), 64, 65);

        List<Record> all = Fixture.records(consumer, "async-0-9223372036854775807-ts,offset,topic,data");
        for (int i = 0; i < 65; i++) {
            assertEquals(i, all.get(i).offset(), "offset of record " + i);
            assertEquals(Fixture.topic(i), all.get(i).topic(), "topic of record " + i);
            assertEquals(ts(i), all.get(i).ts());
            assertArrayEquals(Fixture.payload(i), all.get(i).data());
        }
        assertEquals(3, exchange.status().pendingBatches(), "the batches were still queued while read");
    }

    @Test
    void syncSendsOneFrameAndAsyncBoundedFramesThatNeverSplitARecord() throws Exception {
        Exchange exchange = fixture.exchange(fixture.raw("frames", 10_000));
        Fixture.offer(exchange, 0, 2000);
        byte[] big = new byte[3000];
        big[0] = 1;
        Fixture.offer(exchange, "t/big", big, ts(2000));
        Fixture.offer(exchange, 2001, 2100);
        Fixture.awaitTaken(exchange, 2100);
        QueryServer server = fixture.server(exchange, QueryServerSettings.defaults(Fixture.ANY_PORT).withMaxFrameBytes(1024)
                .withSpoolDir(dir.resolve("spool")));
        ExchangeConsumer consumer = fixture.consumer(server);

        List<byte[]> sync = Fixture.frames(consumer, "sync-0-9223372036854775807");
        assertEquals(1, sync.size(), "sync sends one frame, here spooled past max_frame_bytes");
        List<byte[]> async = Fixture.frames(consumer, "async-0-9223372036854775807");
        assertTrue(async.size() > 20, "async cut " + async.size() + " frames");
        int records = 0;
        int oversized = 0;
        ByteBuffer joined = ByteBuffer.allocate(sync.get(0).length);
        for (byte[] frame : async) {
            ByteBuffer buffer = ByteBuffer.wrap(frame);
            int at = 0;
            while (at < frame.length) {
                at = RawRecordDescriptor.nextRecord(buffer, at);
                records++;
            }
            assertEquals(frame.length, at, "a frame ends on a record boundary");
            if (frame.length > 1024) {
                oversized++;
                assertEquals(RawRecordDescriptor.recordLength(3000), frame.length, "only the oversized record has a frame of its own");
            }
            joined.put(frame);
        }
        assertEquals(2100, records);
        assertEquals(1, oversized);
        assertArrayEquals(sync.get(0), joined.array(), "sync and async carry the same bytes");
        assertEquals(2 * 2100, server.counter(QueryCounter.RECORDS));
    }

    @Test
    void anEmptyRangeGivesSyncOneEmptyFrameAndAsyncOnlyEof() throws Exception {
        Exchange exchange = spreadOverFilesQueueAndRing();
        ExchangeConsumer consumer = fixture.consumer(fixture.server(exchange));

        List<byte[]> sync = Fixture.frames(consumer, "sync-" + (T0 + 17) + "-" + (T0 + 1000));
        assertEquals(1, sync.size());
        assertEquals(0, sync.get(0).length);
        assertEquals(List.of(), Fixture.frames(consumer, "async-0-" + (T0 - 1)));
    }

    @Test
    void everyBadCommandGetsErrThenEofAndTheServerCarriesOn() throws Exception {
        Exchange exchange = spreadOverFilesQueueAndRing();
        QueryServer server = fixture.server(exchange);
        ExchangeConsumer consumer = fixture.consumer(server);
        String[][] cases = {
            {"fetch-1-2", "BAD_VERB"},
            {"sync-12x-20", "BAD_KEY"},
            {"async-1-99999999999999999999", "BAD_KEY"},
            {"sync-20-10", "BAD_RANGE"},
            {"sync-1-2-ts,colour", "BAD_COLUMNS"},
            {"sync-1-2-ts,ts", "BAD_COLUMNS"},
            {"sync", "BAD_COMMAND"},
            {"", "BAD_COMMAND"},
        };
        for (String[] each : cases) {
            try (Query query = consumer.query(each[0])) {
                QueryError error = assertThrows(QueryError.class, query::nextFrame, each[0]);
                assertEquals(each[1], error.code(), each[0] + ": " + error.getMessage());
                assertTrue(error.reason().length() > 5, "a reason for " + each[0]);
                assertNull(query.nextFrame(), "nothing after ERR and EOF");
            }
            Fixture.assertMessages(Fixture.records(consumer, "sync-" + T0 + "-" + T0), 0, 4);
        }
        assertEquals(cases.length, server.counter(QueryCounter.BAD_COMMANDS));
    }

    @Test
    void aRefusalQuotesANonAsciiCommandAsItWasWritten() throws Exception {
        Exchange exchange = spreadOverFilesQueueAndRing();
        QueryServer server = fixture.server(exchange);
        // PAIR serves one peer at a time: the raw client first, then the library's client
        try (RawPairClient client = RawPairClient.connect(server.endpoint())) {
            client.send(new byte[] {'z', (byte) 0xC3, '(', '-', '1', '-', '2'}); // 0xC3 0x28 is not UTF-8
            String err = new String(client.receive(), StandardCharsets.US_ASCII);
            assertTrue(err.startsWith("ERR BAD_VERB "), err);
            assertTrue(err.contains("\\\\xc3("), "the byte that is not UTF-8 is shown as such: " + err);
            assertArrayEquals(new byte[] {0x0B, (byte) 0xAD}, client.receive());
        }
        ExchangeConsumer consumer = fixture.consumer(server);
        try (Query query = consumer.query("donn\u00e9es-1-2")) {
            QueryError error = assertThrows(QueryError.class, query::nextFrame);
            assertTrue(error.reason().contains("donn\u00e9es"), "decoded as UTF-8: " + error.reason());
        }
    }

    @Test
    void queriesOverLimitFrequencyAreRefusedWithRateLimited() throws Exception {
        Exchange exchange = spreadOverFilesQueueAndRing();
        QueryServer server = fixture.server(exchange, QueryServerSettings.defaults(Fixture.ANY_PORT).withLimitFrequency(2));
        ExchangeConsumer consumer = fixture.consumer(server);
        QueryError refused = null;
        for (int i = 0; i < 30 && refused == null; i++) {
            try (Query query = consumer.query("sync-" + T0 + "-" + T0)) {
                while (query.nextFrame() != null) {
                    // read to EOF
                }
            } catch (QueryError e) {
                refused = e;
            }
        }
        assertTrue(refused != null, "two queries per 5 s window, so one of 30 in a row is refused");
        assertEquals("RATE_LIMITED", refused.code());
        assertTrue(refused.reason().contains("limit_frequency"), refused.reason());
        assertTrue(server.counter(QueryCounter.RATE_LIMITED) >= 1);
    }

    @Test
    void aDamagedParquetFileEndsTheReplyWithReadFailedAndTheServerCarriesOn() throws Exception {
        Exchange exchange = fixture.exchange(fixture.raw("damaged", 10));
        for (int file = 1; file <= 2; file++) {
            for (int i = (file - 1) * 10; i < file * 10; i++) {
                assertTrue(exchange.offer(Fixture.topic(i), Fixture.payload(i), T0 + 10L * i));
            }
            int files = file;
            Eventually.await(() -> exchange.counter(StoreCounter.FILES_WRITTEN) == files, () -> files + " files");
        }
        List<Path> files = ParquetFiles.list(dir.resolve("damaged"));
        assertEquals(2, files.size(), files.toString());
        ParquetFiles.overwriteWithGarbage(files.get(1));
        QueryServer server = fixture.server(exchange);
        ExchangeConsumer consumer = fixture.consumer(server);

        for (String verb : List.of("sync", "async")) {
            try (Query query = consumer.query(verb + "-0-9223372036854775807")) {
                QueryError error = assertThrows(QueryError.class, () -> {
                    while (query.nextFrame() != null) {
                        // read until the error
                    }
                });
                assertEquals("READ_FAILED", error.code());
                assertTrue(error.reason().contains("damaged"), error.reason());
            }
            List<Record> first = Fixture.records(consumer, verb + "-" + T0 + "-" + (T0 + 90));
            assertEquals(10, first.size(), "the undamaged file is still served");
        }
        assertEquals(2, server.counter(QueryCounter.READ_FAILURES));
    }

    @Test
    void aSyncReplyOverMaxSyncBytesIsRefusedWithTooLarge() throws Exception {
        Exchange exchange = fixture.exchange(fixture.raw("large", 10_000));
        byte[] payload = new byte[1000];
        for (int i = 0; i < 100; i++) {
            assertTrue(exchange.offer("t/x", payload, T0 + i));
        }
        Fixture.awaitTaken(exchange, 100);
        QueryServer server = fixture.server(exchange, QueryServerSettings.defaults(Fixture.ANY_PORT).withMaxFrameBytes(4096)
                .withMaxSyncBytes(50_000).withSpoolDir(dir.resolve("spool")));
        ExchangeConsumer consumer = fixture.consumer(server);

        try (Query query = consumer.query("sync-0-9223372036854775807")) {
            QueryError error = assertThrows(QueryError.class, query::nextFrame);
            assertEquals("TOO_LARGE", error.code());
            assertTrue(error.reason().contains("async"), error.reason());
        }
        assertEquals(1, Fixture.frames(consumer, "sync-" + T0 + "-" + (T0 + 40)).size(), "41 records fit");
        assertEquals(100, Fixture.records(consumer, "async-0-9223372036854775807").size());
        assertEquals(List.of(), ParquetFiles.listAll(dir.resolve("spool")), "spool files are gone once sent");
    }

    @Test
    void aClientLeavingMidReplyCostsNothingAndTheNextClientGetsOnlyItsOwnReply() throws Exception {
        Exchange exchange = fixture.exchange(fixture.raw("leaving", 10_000));
        byte[] payload = new byte[400];
        int messages = 40_000;
        for (int i = 0; i < messages; i++) {
            payload[0] = (byte) i;
            Fixture.offer(exchange, "t/x", payload.clone(), T0 + i);
        }
        Fixture.awaitTaken(exchange, messages);
        QueryServer server = fixture.server(exchange, QueryServerSettings.defaults(Fixture.ANY_PORT).withMaxFrameBytes(1024));

        try (RawPairClient leaving = RawPairClient.connect(server.endpoint())) {
            leaving.send("async-0-9223372036854775807");
            assertTrue(leaving.receive().length > 0, "the reply had started");
        }
        ExchangeConsumer next = fixture.consumer(server);
        List<Record> records = Fixture.records(next, "sync-" + T0 + "-" + (T0 + 9));
        assertEquals(10, records.size());
        for (int i = 0; i < 10; i++) {
            assertEquals(T0 + i, records.get(i).ts(), "the new client's own records only");
        }
        // The server counts a reply after its EOF is sent, so the client may have it first.
        Eventually.await(() -> server.counter(QueryCounter.ABANDONED) == 1 && server.counter(QueryCounter.REPLIES) == 1,
                () -> server.counters().toString());
    }

    @Test
    void twoExchangesServeTheirOwnDataOnTwoUrls() throws Exception {
        Exchange first = fixture.exchange(fixture.raw("first", 10_000));
        Exchange second = fixture.exchange(fixture.raw("second", 10_000));
        Fixture.offer(first, 0, 10);
        Fixture.offer(second, 100, 120);
        Fixture.awaitTaken(first, 10);
        Fixture.awaitTaken(second, 20);
        QueryServers servers = QueryServers.open(new java.util.LinkedHashMap<>(java.util.Map.of(
                first, QueryServerSettings.defaults(Fixture.ANY_PORT), second, QueryServerSettings.defaults(Fixture.ANY_PORT))));
        try {
            ExchangeConsumer toFirst = fixture.consumer(servers.get("first"));
            ExchangeConsumer toSecond = fixture.consumer(servers.get("second"));
            Fixture.assertMessages(Fixture.records(toFirst, "sync-0-9223372036854775807"), 0, 10);
            Fixture.assertMessages(Fixture.records(toSecond, "async-0-9223372036854775807"), 100, 120);
            assertTrue(!servers.get("first").endpoint().equals(servers.get("second").endpoint()));
        } finally {
            servers.close();
        }
    }

    @Test
    void aRawPairClientSpeakingOnlyTheDocumentedBytesGetsEveryField() throws Exception {
        Exchange exchange = spreadOverFilesQueueAndRing();
        QueryServer server = fixture.server(exchange);
        try (RawPairClient client = RawPairClient.connect(server.endpoint())) {
            // A C client sends the terminating NUL.
            client.send("sync-0-9223372036854775807\0");
            byte[] frame = client.receive();
            assertArrayEquals(new byte[] {0x0B, (byte) 0xAD}, client.receive(), "EOF after the single sync frame");
            ByteBuffer in = ByteBuffer.wrap(frame);
            for (int i = 0; i < 65; i++) {
                assertEquals(ts(i), in.getLong(), "ts u64 big-endian of record " + i);
                byte[] data = new byte[in.getInt()];
                in.get(data);
                assertArrayEquals(Fixture.payload(i), data);
            }
            assertEquals(0, in.remaining());

            client.send("async-0-9223372036854775807-ts,offset,topic,data");
            List<byte[]> frames = new ArrayList<>();
            for (byte[] f = client.receive(); !(f.length == 2 && f[0] == 0x0B && f[1] == (byte) 0xAD); f = client.receive()) {
                frames.add(f);
            }
            int i = 0;
            for (byte[] f : frames) {
                ByteBuffer b = ByteBuffer.wrap(f);
                while (b.hasRemaining()) {
                    assertEquals(ts(i), b.getLong());
                    assertEquals(i, b.getLong(), "offset u64");
                    byte[] topic = new byte[Short.toUnsignedInt(b.getShort())];
                    b.get(topic);
                    assertEquals(Fixture.topic(i), new String(topic, StandardCharsets.UTF_8));
                    byte[] data = new byte[b.getInt()];
                    b.get(data);
                    assertArrayEquals(Fixture.payload(i), data);
                    i++;
                }
            }
            assertEquals(65, i);

            client.send("sync-9-1");
            assertEquals("ERR BAD_RANGE end 1 is before start 9", new String(client.receive(), StandardCharsets.US_ASCII));
            assertArrayEquals(new byte[] {0x0B, (byte) 0xAD}, client.receive());

            client.sendMultipart("sync-0-1", "more");
            assertTrue(new String(client.receive(), StandardCharsets.US_ASCII).startsWith("ERR BAD_COMMAND "));
            assertArrayEquals(new byte[] {0x0B, (byte) 0xAD}, client.receive());
        }
    }

    @Test
    void closingAServerFreesItsUrlAndAnUnbindableUrlNamesTheExchange() throws Exception {
        Exchange exchange = fixture.exchange(fixture.raw("rebind", 10_000));
        QueryServer server = QueryServer.open(exchange, QueryServerSettings.defaults(Fixture.ANY_PORT));
        String url = server.endpoint();
        QueryServerSettings same = QueryServerSettings.defaults(url);
        java.net.BindException taken = assertThrows(java.net.BindException.class, () -> QueryServer.open(exchange, same));
        assertTrue(taken.getMessage().contains("exchange rebind") && taken.getMessage().contains(url), taken.getMessage());
        server.close();
        fixture.server(exchange, same);
        Fixture.offer(exchange, 0, 4);
        Fixture.awaitTaken(exchange, 4);
        Fixture.assertMessages(Fixture.records(fixture.consumer(fixture.server(exchange)), "sync-0-9223372036854775807"), 0, 4);

        Exchange other = fixture.exchange(fixture.raw("other", 10_000));
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> QueryServers.open(
                new java.util.LinkedHashMap<>(java.util.Map.of(exchange, QueryServerSettings.defaults("tcp://127.0.0.1:10999"),
                        other, QueryServerSettings.defaults("tcp://127.0.0.1:10999")))));
        assertTrue(twice.getMessage().startsWith("exchange_url: ") && twice.getMessage().contains("rebind")
                && twice.getMessage().contains("other") && twice.getMessage().contains("tcp://127.0.0.1:10999"), twice.getMessage());
    }
}
