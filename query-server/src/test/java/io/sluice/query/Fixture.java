package io.sluice.query;

import io.sluice.testing.Eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.exchange.Exchange;
import io.sluice.exchange.ExchangeSettings;
import io.sluice.exchange.GatedPlugin;
import io.sluice.parquet.ParquetSettings;
import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;
import io.sluice.query.client.Record;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.stream.PluginRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Real exchanges with real Parquet files under a test directory, their query servers on
 * ephemeral ports, and consumers; closes everything in reverse order. Message i of a test has
 * topic {@code t/(i%3)}, payload {@code m-i} and arrives at {@code T0 + i/4}, so four messages
 * share each millisecond.
 */
final class Fixture implements AutoCloseable {

    static final long T0 = 1_700_000_000_000L;
    static final String ANY_PORT = "tcp://127.0.0.1:*";

    final GatedPlugin gate = new GatedPlugin();
    private final Path dir;
    private final PluginRegistry plugins = PluginRegistry.withBuiltIns();
    private final Deque<AutoCloseable> open = new ArrayDeque<>();
    private boolean gateOpen;

    Fixture(Path dir) {
        this.dir = dir;
        plugins.register(gate, "test");
    }

    static String topic(long i) {
        return "t/" + (i % 3);
    }

    static byte[] payload(long i) {
        return ("m-" + i).getBytes(StandardCharsets.UTF_8);
    }

    static long ts(long i) {
        return T0 + i / 4;
    }

    /** RAW through the writer gate: batches of {@code cap}, flushed only when full, up to 4 queued. */
    ExchangeSettings gated(String name, int cap) {
        return raw(name, cap).withStreamType(GatedPlugin.ID);
    }

    /** RAW: batches of {@code cap}, flushed only when full, up to 4 queued; files published 100 ms after their first row. */
    ExchangeSettings raw(String name, int cap) {
        String files = dir.resolve(name).toString();
        return ExchangeSettings.defaults(name, "t/#", files)
                .withRing(RingSettings.defaults().withCap(cap).withFlushInterval(Duration.ofHours(1)))
                .withParquet(ParquetSettings.defaults(files).withQueueBatches(4).withFileRollInterval(Duration.ofMillis(100))
                        .withRetention(Duration.ZERO)); // the tests capture at ts of 2023
    }

    Exchange exchange(ExchangeSettings settings) throws IOException {
        Exchange exchange = Exchange.open(settings, plugins);
        open.push(() -> {
            openGate();
            exchange.close();
        });
        return exchange;
    }

    /** Lets every batch through the writer from now on. */
    void openGate() {
        if (!gateOpen) {
            gateOpen = true;
            gate.open();
        }
    }

    QueryServer server(Exchange exchange) throws IOException {
        return server(exchange, QueryServerSettings.defaults(ANY_PORT).withSpoolDir(dir.resolve("spool")));
    }

    QueryServer server(Exchange exchange, QueryServerSettings settings) throws IOException {
        QueryServer server = QueryServer.open(exchange, settings);
        open.push(server);
        return server;
    }

    ExchangeConsumer consumer(QueryServer server) {
        // Generous: these tests are about answers, not timing, and a loaded 2-core machine can
        // stall a JeroMQ handshake for seconds (the client then reconnects and asks again).
        ExchangeConsumer consumer = ExchangeConsumer.builder().url(server.endpoint()).timeout(Duration.ofSeconds(10)).connect();
        open.push(consumer);
        return consumer;
    }

    static void offer(Exchange exchange, int from, int to) {
        for (int i = from; i < to; i++) {
            offer(exchange, topic(i), payload(i), ts(i));
        }
    }

    /** Offers one message, waiting while the ring is full (a test must not lose any). */
    static void offer(Exchange exchange, String topic, byte[] payload, long ts) {
        if (!exchange.offer(topic, payload, ts)) {
            Eventually.await(() -> exchange.offer(topic, payload, ts), () -> "the ring stayed full");
        }
    }

    static void awaitTaken(Exchange exchange, long messages) {
        Eventually.await(() -> exchange.counter(RingCounter.RECEIVED) == messages, () -> "the ring took "
                + exchange.counter(RingCounter.RECEIVED) + " of " + messages + " offers");
    }

    /** Every record of a query, read record by record. */
    static List<Record> records(ExchangeConsumer consumer, String command) {
        List<Record> records = new ArrayList<>();
        try (Query query = consumer.query(command)) {
            query.records().forEach(records::add);
        }
        return records;
    }

    /** Every data frame of a query. */
    static List<byte[]> frames(ExchangeConsumer consumer, String command) {
        List<byte[]> frames = new ArrayList<>();
        try (Query query = consumer.query(command)) {
            query.frames().forEachRemaining(frames::add);
        }
        return frames;
    }

    /** Checks that records are exactly messages {@code from} to {@code to - 1}, in order, with ts and payload. */
    static void assertMessages(List<Record> records, int from, int to) {
        assertEquals(to - from, records.size(), "record count");
        for (int i = 0; i < records.size(); i++) {
            long message = from + i;
            assertEquals(ts(message), records.get(i).ts(), "ts of record " + i);
            assertArrayEquals(payload(message), records.get(i).data(), "payload of record " + i + " (message " + message + ")");
        }
    }

    @Override
    public void close() throws Exception {
        Exception failure = null;
        while (!open.isEmpty()) {
            try {
                open.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
