package io.sluice.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.kafka.testing.DroppingProxy;
import io.sluice.kafka.testing.KafkaClients;
import io.sluice.kafka.testing.RawKafka;
import io.sluice.kafka.testing.TestBroker;
import io.sluice.storage.LogSettings;
import io.sluice.streams.StreamSettings;

/**
 * What survives: retries without duplicates, committed offsets, producer state and consumer groups
 * (members, generation, assignments) across restarts.
 */
class DurabilityTest {
    @TempDir
    Path dir;

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anIdempotentProducerWhoseResponsesAreLostRetriesWithoutDuplicates() throws Exception {
        try (DroppingProxy proxy = new DroppingProxy();
             TestBroker broker = TestBroker.startBehind(dir, List.of(StreamSettings.of("retried", "retried/#", 1,
                     LogSettings.defaults())), proxy.port())) {
            proxy.forwardTo(broker.port());
            Properties p = KafkaClients.producerProperties("127.0.0.1:" + proxy.port());
            p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
                producer.send(new ProducerRecord<>("retried", utf8("warm-up"))).get();
                proxy.dropProduceResponses(3);
                for (int i = 0; i < 200; i++) {
                    sent.add(producer.send(new ProducerRecord<>("retried", utf8("r" + i))));
                }
                producer.flush();
            }
            assertEquals(3, proxy.dropped(), "three responses were lost, so three batches were sent again");
            Set<Long> offsets = new HashSet<>();
            for (Future<RecordMetadata> f : sent) {
                offsets.add(f.get().offset());
            }
            assertEquals(200, offsets.size(), "every record acknowledged at its own offset");
            assertEquals(201, broker.streams().get("retried").endOffset(0), "and stored exactly once");
        }
    }

    @Test
    void committedOffsetsAndProducerStateSurviveARestart() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, List.of(StreamSettings.of("kept", "kept/#", 2,
                LogSettings.defaults())))) {
            try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(broker.bootstrap())) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>("kept", i % 2, null, utf8("early-" + i))).get();
                }
            }
            try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(broker.bootstrap(), "resume")) {
                consumer.subscribe(List.of("kept"));
                assertEquals(10, poll(consumer, 10).size());
                consumer.commitSync();
            }
            long pid;
            MemoryRecords batch;
            long first;
            try (RawKafka raw = new RawKafka(broker.bootstrap())) {
                pid = new InitProducerIdResponseData(raw.call(ApiKeys.INIT_PRODUCER_ID, (short) 4,
                        new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(1)), (short) 4)
                        .producerId();
                batch = MemoryRecords.withIdempotentRecords(Compression.NONE, pid, (short) 0, 0,
                        new SimpleRecord(utf8("late-raw")));
                first = WireTest.produceTo(raw, "kept", 0, batch).baseOffset();
            }

            broker.restart();

            try (RawKafka raw = new RawKafka(broker.bootstrap())) {
                batch.buffer().rewind();
                var retry = WireTest.produceTo(raw, "kept", 0, batch);
                assertEquals(Errors.NONE.code(), retry.errorCode());
                assertEquals(first, retry.baseOffset(), "a retry after the restart is still recognised");
            }
            try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(broker.bootstrap())) {
                for (int i = 0; i < 5; i++) {
                    producer.send(new ProducerRecord<>("kept", i % 2, null, utf8("late-" + i))).get();
                }
            }
            try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(broker.bootstrap(), "resume")) {
                consumer.subscribe(List.of("kept"));
                Set<String> values = new HashSet<>(poll(consumer, 6));
                assertEquals(Set.of("late-raw", "late-0", "late-1", "late-2", "late-3", "late-4"), values,
                        "the group resumes where it committed");
            }
        }
    }

    @Test
    void aConsumerGroupCarriesOnThroughARestartWithItsGenerationAndNoRebalance() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, List.of(StreamSettings.of("grouped", "grouped/#", 2,
                LogSettings.defaults())));
             KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(broker.bootstrap());
             Member one = new Member(broker.bootstrap());
             Member two = new Member(broker.bootstrap())) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while ((one.consumer.assignment().size() != 1 || two.consumer.assignment().size() != 1)
                    && System.nanoTime() < deadline) {
                one.consumer.poll(Duration.ofMillis(100));
                two.consumer.poll(Duration.ofMillis(100));
            }
            assertEquals(1, one.consumer.assignment().size(), "the two members share the two partitions");
            produce(producer, "early", 10);
            List<String> early = pollBoth(one, two, 10);
            assertEquals(10, new HashSet<>(early).size());
            int assignedOne = one.assigned.get();
            int assignedTwo = two.assigned.get();
            int revoked = one.revoked.get() + two.revoked.get();
            one.consumer.commitSync();
            two.consumer.commitSync();
            var before = List.of(one.consumer.groupMetadata(), two.consumer.groupMetadata());

            broker.restart();

            produce(producer, "late", 10);
            List<String> late = pollBoth(one, two, 10);
            one.consumer.commitSync();
            two.consumer.commitSync();
            assertEquals(10, late.size(), "offsets carry on: nothing read twice, nothing missed: " + late);
            assertTrue(late.stream().allMatch(v -> v.startsWith("late-")), late.toString());
            var after = List.of(one.consumer.groupMetadata(), two.consumer.groupMetadata());
            for (int i = 0; i < 2; i++) {
                assertEquals(before.get(i).generationId(), after.get(i).generationId(), "the generation carries on");
                assertEquals(before.get(i).memberId(), after.get(i).memberId(), "the member id carries on");
            }
            assertEquals(assignedOne, one.assigned.get(), "no rebalance after the restart");
            assertEquals(assignedTwo, two.assigned.get(), "no rebalance after the restart");
            assertEquals(revoked, one.revoked.get() + two.revoked.get(), "nothing revoked or lost");
        }
    }

    /** A consumer in group {@code carry-on} that counts its rebalances. */
    private static final class Member implements AutoCloseable {
        final KafkaConsumer<byte[], byte[]> consumer;
        final AtomicInteger assigned = new AtomicInteger();
        final AtomicInteger revoked = new AtomicInteger();

        Member(String bootstrap) {
            Properties p = KafkaClients.consumerProperties(bootstrap, "carry-on");
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            consumer = new KafkaConsumer<>(p);
            consumer.subscribe(List.of("grouped"), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> parts) {
                    assigned.incrementAndGet();
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> parts) {
                    if (!parts.isEmpty()) {
                        revoked.incrementAndGet();
                    }
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> parts) {
                    revoked.incrementAndGet();
                }
            });
        }

        @Override
        public void close() {
            consumer.close();
        }
    }

    private static void produce(KafkaProducer<byte[], byte[]> producer, String phase, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>("grouped", i % 2, null, utf8(phase + "-" + i))).get();
        }
    }

    /** Polls both members in turn (a rebalance needs both) until {@code count} records came, or 60 s. */
    private static List<String> pollBoth(Member one, Member two, int count) {
        List<String> values = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (values.size() < count && System.nanoTime() < deadline) {
            for (Member member : List.of(one, two)) {
                member.consumer.poll(Duration.ofMillis(100))
                        .forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
            }
        }
        assertTrue(values.size() >= count, "got " + values);
        return values;
    }

    /** Polls until {@code count} records came, or 30 s. */
    static List<String> poll(KafkaConsumer<byte[], byte[]> consumer, int count) {
        List<String> values = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (values.size() < count && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
        }
        assertTrue(values.size() >= count, "got " + values);
        return values;
    }
}
