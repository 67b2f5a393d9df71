package io.sluice.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.testing.Command;
import io.sluice.kafka.testing.KafkaClients;
import io.sluice.kafka.testing.TestBroker;
import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.LogSettings;
import io.sluice.storage.StoredRecord;
import io.sluice.streams.Stream;
import io.sluice.streams.StreamSettings;
import io.sluice.testing.Eventually;

/**
 * Fetches that start inside a stored batch, cross batch boundaries, or read a compacted partition
 * with gaps in its offsets, read by kafka-clients 4.x and by kcat (librdkafka). Stored batches go
 * out whole, so an answer may begin before the offset asked for: the clients must skip those
 * records, and must never see the producer tags the storage keeps beside the records.
 */
class FetchTest {
    private static final int RECORDS = 600;
    private static final int PER_PRODUCE = 50;
    private static final long BASE_TIME = System.currentTimeMillis() - 60_000;
    @TempDir
    static Path dir;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        LogSettings compacted = LogSettings.defaults().toBuilder().cleanupPolicy(CleanupPolicy.COMPACT).segmentBytes(4096)
                .minCleanableDirtyRatio(0).build();
        broker = TestBroker.startMaintainedEvery(dir, List.of(
                StreamSettings.of("replayed", "replayed/#", 1, LogSettings.defaults()),
                StreamSettings.of("compacted", "compacted/#", 1, compacted)), 200);
        try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(broker.bootstrap())) {
            for (int i = 0; i < RECORDS; i++) {
                List<Header> headers = i % 2 == 0 ? List.of() : List.of(new RecordHeader("seq", utf8(Integer.toString(i))),
                        new RecordHeader("empty", null));
                producer.send(new ProducerRecord<>("replayed", 0, BASE_TIME + i, utf8("key-" + (i % 7)), utf8("value-" + i),
                        headers));
                if (i % PER_PRODUCE == PER_PRODUCE - 1) {
                    producer.flush();
                }
            }
        }
        assertEquals(RECORDS, broker.streams().get("replayed").endOffset(0));
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Reads {@code topic}'s partition 0 with kafka-clients from {@code offset} to its end. */
    private static List<ConsumerRecord<byte[], byte[]>> consume(String topic, long offset) {
        List<ConsumerRecord<byte[], byte[]>> received = new ArrayList<>();
        TopicPartition partition = new TopicPartition(topic, 0);
        long end = broker.streams().get(topic).endOffset(0);
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(broker.bootstrap(), null)) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, offset);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
            }
        }
        return received;
    }

    private static List<String> kcat(String topic, long offset) {
        String kcat = Command.require("kcat", "kcat");
        List<String> command = List.of(kcat, "-b", broker.bootstrap(), "-X", "socket.timeout.ms=10000", "-C", "-t", topic,
                "-p", "0", "-o", Long.toString(offset), "-e", "-q", "-f", "%o|%k|%s|%h\\n");
        Command.Result result;
        try {
            result = Command.run(command, "", 60);
        } catch (Exception e) {
            throw new AssertionError(String.join(" ", command) + " could not run", e);
        }
        assertEquals(0, result.exitCode(), () -> String.join(" ", command) + " failed: " + result.stderr());
        String out = result.stdout().trim();
        return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
    }

    @ParameterizedTest(name = "from offset {0}")
    @ValueSource(longs = {0, 1, 49, 50, 51, 273, 550, 599})
    void kafkaClientsReadEveryRecordFromAnOffsetInsideOrBetweenBatches(long from) {
        List<ConsumerRecord<byte[], byte[]>> received = consume("replayed", from);
        assertEquals(RECORDS - from, received.size());
        for (int j = 0; j < received.size(); j++) {
            ConsumerRecord<byte[], byte[]> record = received.get(j);
            long i = from + j;
            assertEquals(i, record.offset());
            assertArrayEquals(utf8("value-" + i), record.value());
            assertArrayEquals(utf8("key-" + (i % 7)), record.key());
            assertEquals(BASE_TIME + i, record.timestamp());
            Header[] headers = record.headers().toArray();
            if (i % 2 == 0) {
                assertEquals(0, headers.length, "record " + i + " has no headers, and no producer tag shows");
            } else {
                assertEquals(2, headers.length);
                assertArrayEquals(utf8(Long.toString(i)), record.headers().lastHeader("seq").value());
                assertNull(record.headers().lastHeader("empty").value());
            }
        }
    }

    @ParameterizedTest(name = "from offset {0}")
    @ValueSource(longs = {0, 51, 273, 599})
    void kcatReadsEveryRecordFromAnOffsetInsideOrBetweenBatches(long from) {
        List<String> lines = kcat("replayed", from);
        assertEquals(RECORDS - from, lines.size(), () -> String.join("\n", lines));
        for (int j = 0; j < lines.size(); j++) {
            long i = from + j;
            String[] fields = lines.get(j).split("\\|", -1);
            assertEquals(Long.toString(i), fields[0]);
            assertEquals("key-" + (i % 7), fields[1]);
            assertEquals("value-" + i, fields[2]);
            assertEquals(i % 2 == 1, fields[3].contains("seq=" + i), lines.get(j));
        }
    }

    @Test
    void aCompactedPartitionReadsWithItsGapsFromAnyOffset() throws Exception {
        Stream stream = broker.streams().get("compacted");
        try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(broker.bootstrap())) {
            // Keys written once, between keys written again and again: compaction leaves gaps between them.
            for (int version = 0; version < 40; version++) {
                for (int k = 0; k < 10; k++) {
                    producer.send(new ProducerRecord<>("compacted", 0, utf8("k" + k), utf8("k" + k + ":v" + version)));
                    if (version == 0) {
                        producer.send(new ProducerRecord<>("compacted", 0, utf8("once" + k), utf8("once" + k)));
                    }
                }
                producer.flush();
            }
        }
        Eventually.await(() -> stream.read(0, 0, 10_000, 1 << 20).size() < 300, "the cleaner compacted the partition");
        long gap = firstAfterAGap(stream.read(0, 0, 10_000, 1 << 20));
        for (long from : new long[] {0, gap - 1}) {
            // The cleaner may compact again meanwhile: compared when the partition was the same before and after.
            Eventually.await(() -> {
                List<StoredRecord> before = stream.read(0, from, 10_000, 1 << 20);
                List<ConsumerRecord<byte[], byte[]>> consumed = consume("compacted", from);
                List<String> lines = kcat("compacted", from);
                if (!offsets(before).equals(offsets(stream.read(0, from, 10_000, 1 << 20)))) {
                    return false;
                }
                assertSameRecords(before, consumed);
                assertEquals(before.size(), lines.size());
                for (int i = 0; i < lines.size(); i++) {
                    StoredRecord expected = before.get(i);
                    assertEquals(expected.offset() + "|" + new String(expected.key(), StandardCharsets.UTF_8) + "|"
                            + new String(expected.value(), StandardCharsets.UTF_8) + "|", lines.get(i));
                }
                return true;
            }, "a read of the compacted partition from offset " + from + " while the cleaner left it alone");
        }
    }

    private static List<Long> offsets(List<StoredRecord> records) {
        return records.stream().map(StoredRecord::offset).toList();
    }

    /** The offset of the first record whose predecessor is not the offset before it. */
    private static long firstAfterAGap(List<StoredRecord> records) {
        for (int i = 1; i < records.size(); i++) {
            if (records.get(i).offset() > records.get(i - 1).offset() + 1) {
                return records.get(i).offset();
            }
        }
        throw new AssertionError("no gap in the offsets of " + records.size() + " records");
    }

    private static void assertSameRecords(List<StoredRecord> expected, List<ConsumerRecord<byte[], byte[]>> received) {
        assertEquals(expected.size(), received.size());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i).offset(), received.get(i).offset());
            assertArrayEquals(expected.get(i).key(), received.get(i).key());
            assertArrayEquals(expected.get(i).value(), received.get(i).value());
        }
    }
}
