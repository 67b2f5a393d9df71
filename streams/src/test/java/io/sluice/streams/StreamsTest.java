package io.sluice.streams;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.sluice.storage.Engine;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.Header;
import io.sluice.storage.LogSettings;
import io.sluice.storage.Record;
import io.sluice.storage.StorageAdapter;
import io.sluice.storage.StoredRecord;
import io.sluice.storage.TopicRouter;
import io.sluice.testing.Eventually;

class StreamsTest {
    /** Now-ish: retention (7 days by default) would remove records stamped long ago. */
    private static final long NOW = System.currentTimeMillis();
    private static final LogSettings LOG = LogSettings.builder().segmentBytes(1 << 20).flush(FlushPolicy.ALWAYS).build();

    @TempDir
    Path dir;
    private StorageAdapter adapter;
    private Streams streams;

    private Streams open(StreamSettings... configured) {
        adapter = StorageAdapter.open(dir);
        streams = Streams.open(adapter, List.of(configured));
        return streams;
    }

    private void reopen(StreamSettings... configured) {
        closeAll();
        open(configured);
    }

    @AfterEach
    void closeAll() {
        if (streams != null) {
            streams.close();
            streams = null;
        }
        if (adapter != null) {
            adapter.close();
            adapter = null;
        }
    }

    private static StreamSettings stream(String name, String topic, int partitions, Engine engine) {
        return new StreamSettings(name, topic, partitions, PartitionKey.TOPIC, engine, LOG);
    }

    private static CapturedMessage message(String topic, String payload, String clientId) {
        return new CapturedMessage(topic, payload.getBytes(StandardCharsets.UTF_8), NOW, 1, false, clientId,
                List.of(new Header("unit", "C".getBytes(StandardCharsets.UTF_8))));
    }

    private static AppendResult append(Stream stream, int partition, List<Record> records, ProducerBatch producer)
            throws Exception {
        CompletableFuture<AppendResult> result = new CompletableFuture<>();
        stream.append(partition, records, producer, result::complete);
        return result.get(30, TimeUnit.SECONDS);
    }

    private static List<Record> records(String... values) {
        List<Record> records = new ArrayList<>();
        for (String value : values) {
            records.add(Record.of(null, value.getBytes(StandardCharsets.UTF_8), NOW));
        }
        return records;
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void aCapturedMessageIsReleasedOnceDurableAndReadsBackWithItsHeadersInItsTopicsPartition(Engine engine)
            throws Exception {
        Stream stream = open(stream("sensors", "sensors/#", 4, engine)).get("sensors");
        CompletableFuture<Void> durable = new CompletableFuture<>();
        assertTrue(stream.capture(message("sensors/t1", "21.5", "dev-1"), () -> durable.complete(null)));
        durable.get(30, TimeUnit.SECONDS);

        int partition = TopicRouter.partitionForKey("sensors/t1".getBytes(StandardCharsets.UTF_8), 4);
        assertEquals(1, stream.endOffset(partition), "readable once released");
        Record record = stream.read(partition, 0, 10, 1 << 20).get(0).record();
        assertArrayEquals("sensors/t1".getBytes(StandardCharsets.UTF_8), record.key());
        assertArrayEquals("21.5".getBytes(StandardCharsets.UTF_8), record.value());
        assertEquals(NOW, record.timestamp());
        assertEquals(List.of(StreamRecords.QOS, StreamRecords.RETAIN, StreamRecords.CLIENT_ID, "unit"),
                record.headers().stream().map(Header::key).toList());
        assertEquals(1, StreamRecords.qos(record, 0));
        assertFalse(StreamRecords.retain(record));
        assertEquals(1, stream.counter(StreamCounter.RECORDS_CAPTURED));
    }

    @Test
    void messagesOfOneTopicKeepTheirOrderInOnePartition() {
        Stream stream = open(stream("s", "#", 3, Engine.MEMORY)).get("s");
        AtomicInteger durable = new AtomicInteger();
        for (int i = 0; i < 300; i++) {
            assertTrue(stream.capture(message("t/" + (i % 3), Integer.toString(i), "c"), durable::incrementAndGet));
        }
        Eventually.await(() -> durable.get() == 300, "all 300 captures durable");
        Set<String> seen = new HashSet<>();
        for (int p = 0; p < 3; p++) {
            String topic = null;
            int previous = -1;
            for (StoredRecord record : stream.read(p, 0, 1000, 1 << 20)) {
                String key = new String(record.key(), StandardCharsets.UTF_8);
                int value = Integer.parseInt(new String(record.value(), StandardCharsets.UTF_8));
                if (key.equals(topic)) {
                    assertTrue(value > previous, "order kept within topic " + key);
                }
                topic = key;
                previous = value;
                seen.add(key);
            }
        }
        assertEquals(Set.of("t/0", "t/1", "t/2"), seen);
    }

    @Test
    void roundRobinSpreadsMessagesOverEveryPartition() {
        StreamSettings settings = new StreamSettings("rr", "#", 4, PartitionKey.ROUND_ROBIN, Engine.MEMORY, LOG);
        Stream stream = open(settings).get("rr");
        AtomicInteger durable = new AtomicInteger();
        for (int i = 0; i < 8; i++) {
            stream.capture(message("same/topic", "x", "c"), durable::incrementAndGet);
        }
        Eventually.await(() -> durable.get() == 8, "8 captures durable");
        for (int p = 0; p < 4; p++) {
            assertEquals(2, stream.endOffset(p), "partition " + p);
        }
    }

    @Test
    void aRetriedProducerBatchGetsItsOriginalOffsetAlsoAfterARestart() throws Exception {
        Stream stream = open(stream("k", "k", 2, Engine.SEGMENT)).get("k");
        ProducerBatch first = new ProducerBatch(1000, (short) 0, 0, 2);
        ProducerBatch second = new ProducerBatch(1000, (short) 0, 2, 1);
        assertEquals(AppendResult.appended(0), append(stream, 1, records("a", "b"), first));
        assertEquals(AppendResult.appended(2), append(stream, 1, records("c"), second));
        assertEquals(AppendResult.duplicate(0), append(stream, 1, records("a", "b"), first));
        assertEquals(AppendResult.Status.OUT_OF_ORDER_SEQUENCE,
                append(stream, 1, records("e"), new ProducerBatch(1000, (short) 0, 7, 1)).status());

        reopen(stream("k", "k", 2, Engine.SEGMENT));
        stream = streams.get("k");
        assertEquals(AppendResult.duplicate(2), append(stream, 1, records("c"), second));
        assertEquals(AppendResult.appended(3), append(stream, 1, records("d"), new ProducerBatch(1000, (short) 0, 3, 1)));
        assertEquals(4, stream.endOffset(1), "no duplicate was written");
        List<StoredRecord> stored = stream.read(1, 0, 10, 1 << 20);
        assertEquals(List.of(), stored.get(0).record().tags(), "only the last record of a batch carries the producer tag");
        assertEquals(List.of("producer/1000/0/0/2"), stored.get(1).record().tags());
    }

    @Test
    void anOlderEpochIsRefusedAndANewEpochStartsAtSequenceZero() throws Exception {
        Stream stream = open(stream("e", "e", 1, Engine.MEMORY)).get("e");
        assertEquals(AppendResult.Status.APPENDED, append(stream, 0, records("a"), new ProducerBatch(5, (short) 1, 0, 1)).status());
        assertEquals(AppendResult.Status.INVALID_PRODUCER_EPOCH,
                append(stream, 0, records("b"), new ProducerBatch(5, (short) 0, 1, 1)).status());
        assertEquals(AppendResult.Status.OUT_OF_ORDER_SEQUENCE,
                append(stream, 0, records("c"), new ProducerBatch(5, (short) 2, 4, 1)).status());
        assertEquals(AppendResult.Status.APPENDED, append(stream, 0, records("d"), new ProducerBatch(5, (short) 2, 0, 1)).status());
    }

    @Test
    void sequenceNumbersWrapPastInt32() throws Exception {
        Stream stream = open(stream("w", "w", 1, Engine.MEMORY)).get("w");
        int nearEnd = Integer.MAX_VALUE - 1;
        assertEquals(AppendResult.appended(0), append(stream, 0, records("a", "b"), new ProducerBatch(9, (short) 0, nearEnd, 2)));
        assertEquals(AppendResult.appended(2), append(stream, 0, records("c"), new ProducerBatch(9, (short) 0, 0, 1)));
        assertEquals(AppendResult.duplicate(0), append(stream, 0, records("a", "b"), new ProducerBatch(9, (short) 0, nearEnd, 2)));
    }

    @Test
    void partitionsCanBeAddedButNeverTakenAway() {
        open(stream("p", "p/#", 2, Engine.SEGMENT));
        reopen(stream("p", "p/#", 3, Engine.SEGMENT));
        assertEquals(3, streams.get("p").partitions());
        assertTrue(adapter.shardExists("p_2"));
        closeAll();
        adapter = StorageAdapter.open(dir);
        InvalidStreamException lowered = assertThrows(InvalidStreamException.class,
                () -> Streams.open(adapter, List.of(stream("p", "p/#", 2, Engine.SEGMENT))));
        assertEquals("partitions", lowered.key());
        assertEquals("p", lowered.stream());
        assertTrue(lowered.getMessage().contains("3 partitions on disk"), lowered.getMessage());
        InvalidStreamException engine = assertThrows(InvalidStreamException.class,
                () -> Streams.open(adapter, List.of(stream("p", "p/#", 3, Engine.MEMORY))));
        assertEquals("engine", engine.key());
    }

    @Test
    void aCreatedStreamSurvivesARestartAndOnlyCreatedStreamsCanBeDeleted() throws Exception {
        open(stream("configured", "c/#", 1, Engine.SEGMENT));
        List<String> events = new CopyOnWriteArrayList<>();
        streams.onCreated(s -> events.add("created " + s.name()));
        streams.onDeleted(s -> events.add("deleted " + s.name()));
        Stream created = streams.create(stream("orders", "orders", 2, Engine.SEGMENT));
        assertEquals(StreamException.Reason.EXISTS, assertThrows(StreamException.class,
                () -> streams.create(stream("orders", "x", 1, Engine.SEGMENT))).reason());
        append(created, 0, records("o1"), null);
        created.commitOffset("billing", 0, 1);

        reopen(stream("configured", "c/#", 1, Engine.SEGMENT));
        Stream again = streams.get("orders");
        assertFalse(again.isConfigured());
        assertEquals(1, again.endOffset(0));
        assertEquals(1, again.committedOffset("billing", 0).getAsLong());
        assertEquals(StreamException.Reason.CONFIGURED, assertThrows(StreamException.class,
                () -> streams.delete("configured")).reason());
        assertEquals(StreamException.Reason.UNKNOWN, assertThrows(StreamException.class,
                () -> streams.delete("nothing")).reason());

        streams.delete("orders");
        assertNull(streams.get("orders"));
        assertFalse(adapter.shardExists("orders_0"));
        reopen(stream("configured", "c/#", 1, Engine.SEGMENT));
        assertNull(streams.get("orders"), "a deleted stream stays deleted");
        assertEquals(List.of("created orders"), events.subList(0, 1));
    }

    @Test
    void theConfigurationTakesOverAStreamCreatedAtRunTime() throws Exception {
        open();
        append(streams.create(stream("t", "t", 1, Engine.SEGMENT)), 0, records("kept"), null);
        reopen(stream("t", "t/#", 2, Engine.SEGMENT));
        Stream stream = streams.get("t");
        assertTrue(stream.isConfigured());
        assertEquals("t/#", stream.topic());
        assertEquals(1, stream.endOffset(0), "the records created at run time are still there");
        reopen();
        assertNull(streams.get("t"), "once configured, the stream is no longer remembered as created");
    }

    @Test
    void producerIdsAreNeverHandedOutTwiceAcrossRestarts() {
        open();
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 1500; i++) {
            assertTrue(ids.add(streams.newProducerId()));
        }
        reopen();
        for (int i = 0; i < 10; i++) {
            assertTrue(ids.add(streams.newProducerId()), "an id handed out before the restart came again");
        }
    }

    @Test
    void appendListenersLearnTheNewEndOffset() throws Exception {
        Stream stream = open(stream("l", "l", 1, Engine.MEMORY)).get("l");
        List<Long> ends = new CopyOnWriteArrayList<>();
        streams.addAppendListener((s, partition, end) -> ends.add(end));
        append(stream, 0, records("a", "b", "c"), null);
        // The listeners are told on the appender's thread, which may run after the append's answer.
        Eventually.await(() -> !ends.isEmpty(), "the listener is told");
        assertEquals(List.of(3L), ends);
    }
}
