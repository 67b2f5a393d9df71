package io.sluice.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.kafka.testing.KafkaClients;
import io.sluice.kafka.testing.TestBroker;
import io.sluice.storage.Engine;
import io.sluice.storage.LogSettings;
import io.sluice.streams.PartitionKey;
import io.sluice.streams.StreamSettings;
import io.sluice.testing.Eventually;

/** Apache kafka-clients 4.x, with their default settings, against the listener. */
class JavaClientsTest {
    /** Recent: retention (7 days) removes records stamped long ago, at once on the memory engine. */
    static final long BASE_TIME = System.currentTimeMillis() - 60_000;
    @TempDir
    static Path dir;
    static TestBroker broker;

    @BeforeAll
    static void start() {
        broker = TestBroker.start(dir, List.of(
                new StreamSettings("segmented", "segmented/#", 3, PartitionKey.TOPIC, Engine.SEGMENT, LogSettings.defaults()),
                new StreamSettings("inmemory", "inmemory/#", 3, PartitionKey.TOPIC, Engine.MEMORY, LogSettings.defaults()),
                StreamSettings.of("grouped", "grouped/#", 4, LogSettings.defaults()),
                StreamSettings.of("timed", "timed/#", 1, LogSettings.defaults()),
                StreamSettings.of("waiting", "waiting/#", 2, LogSettings.defaults()),
                StreamSettings.of("configured", "configured/#", 1, LogSettings.defaults())));
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "engine {0}")
    @ValueSource(strings = {"segmented", "inmemory"})
    void producedRecordsAreConsumedWithKeyValueHeadersAndOrderPerKey(String topic) throws Exception {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(broker.bootstrap())) {
            for (int i = 0; i < 300; i++) {
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, null, BASE_TIME + i,
                        utf8("key-" + (i % 7)), utf8("value-" + i),
                        List.of(new RecordHeader("seq", utf8(Integer.toString(i))), new RecordHeader("empty", null)));
                sent.add(producer.send(record));
            }
            producer.flush();
        }
        for (Future<RecordMetadata> f : sent) {
            assertTrue(f.get().offset() >= 0);
        }
        Map<String, Integer> lastByKey = new HashMap<>();
        int received = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(broker.bootstrap(), null)) {
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1),
                    new TopicPartition(topic, 2));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (received < 300 && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    String key = new String(record.key(), StandardCharsets.UTF_8);
                    int seq = Integer.parseInt(new String(record.headers().lastHeader("seq").value(), StandardCharsets.UTF_8));
                    assertArrayEquals(utf8("value-" + seq), record.value());
                    assertEquals(BASE_TIME + seq, record.timestamp());
                    assertEquals(null, record.headers().lastHeader("empty").value());
                    Integer previous = lastByKey.put(key, seq);
                    assertTrue(previous == null || previous < seq, "order of key " + key);
                    received++;
                }
            }
        }
        assertEquals(300, received);
    }

    /** Polls on its own thread until stopped, recording its current assignment. */
    static final class GroupMember implements AutoCloseable {
        final KafkaConsumer<byte[], byte[]> consumer;
        final Thread thread;
        volatile java.util.Set<TopicPartition> assignment = java.util.Set.of();
        volatile boolean running = true;
        final java.util.concurrent.atomic.AtomicInteger records = new java.util.concurrent.atomic.AtomicInteger();

        GroupMember(String group, String assignor) {
            java.util.Properties p = KafkaClients.consumerProperties(broker.bootstrap(), group);
            p.put(org.apache.kafka.clients.consumer.ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor);
            p.put(org.apache.kafka.clients.consumer.ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "300");
            p.put(org.apache.kafka.clients.consumer.ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
            consumer = new KafkaConsumer<>(p);
            consumer.subscribe(List.of("grouped"));
            thread = new Thread(() -> {
                while (running) {
                    records.addAndGet(consumer.poll(Duration.ofMillis(100)).count());
                    assignment = java.util.Set.copyOf(consumer.assignment());
                }
                consumer.close();
            }, "group-member");
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(30_000);
        }
    }

    @ParameterizedTest(name = "assignor {0}")
    @ValueSource(strings = {"org.apache.kafka.clients.consumer.RangeAssignor",
            "org.apache.kafka.clients.consumer.RoundRobinAssignor",
            "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"})
    void aGroupOfTwoSharesThePartitionsAndRebalancesWhenOneLeaves(String assignor) throws Exception {
        String group = "g-" + assignor.substring(assignor.lastIndexOf('.') + 1);
        try (GroupMember first = new GroupMember(group, assignor)) {
            Eventually.await(() -> first.assignment.size() == 4, () -> "the only member owns all 4: " + first.assignment);
            try (GroupMember second = new GroupMember(group, assignor)) {
                Eventually.await(() -> first.assignment.size() == 2 && second.assignment.size() == 2,
                        () -> "2 and 2 after the second joined: " + first.assignment + " " + second.assignment);
                java.util.Set<TopicPartition> all = new java.util.HashSet<>(first.assignment);
                all.addAll(second.assignment);
                assertEquals(4, all.size(), "no partition owned twice");
            }
            Eventually.await(() -> first.assignment.size() == 4, () -> "all 4 back after the second left: " + first.assignment);
        }
        try (Admin admin = KafkaClients.admin(broker.bootstrap())) {
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            assertEquals(GroupState.EMPTY, description.groupState());
        }
    }

    @org.junit.jupiter.api.Test
    void adminClientCreatesListsDescribesAndDeletesTopics() throws Exception {
        try (Admin admin = KafkaClients.admin(broker.bootstrap())) {
            assertEquals(1, admin.describeCluster().nodes().get().size());
            NewTopic created = new NewTopic("created.topic", 2, (short) 1)
                    .configs(Map.of("retention.ms", "3600000", "cleanup.policy", "delete"));
            admin.createTopics(List.of(created)).all().get();
            assertTrue(admin.listTopics().names().get().containsAll(List.of("created.topic", "segmented", "grouped")));
            TopicDescription description = admin.describeTopics(List.of("created.topic")).allTopicNames().get()
                    .get("created.topic");
            assertEquals(2, description.partitions().size());
            assertEquals(0, description.partitions().get(0).leader().id());
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "created.topic");
            Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
            assertEquals("3600000", config.get("retention.ms").value());
            assertEquals("created.topic", config.get("sluice.mqtt.topic").value());

            ExecutionException exists = assertThrows(ExecutionException.class,
                    () -> admin.createTopics(List.of(new NewTopic("created.topic", 1, (short) 1))).all().get());
            assertInstanceOf(TopicExistsException.class, exists.getCause());
            ExecutionException badConfig = assertThrows(ExecutionException.class, () -> admin.createTopics(List.of(
                    new NewTopic("other", 1, (short) 1).configs(Map.of("min.insync.replicas", "2")))).all().get());
            assertInstanceOf(InvalidConfigurationException.class, badConfig.getCause());
            ExecutionException replicas = assertThrows(ExecutionException.class,
                    () -> admin.createTopics(List.of(new NewTopic("other", 1, (short) 3))).all().get());
            assertInstanceOf(InvalidReplicationFactorException.class, replicas.getCause());

            ExecutionException configured = assertThrows(ExecutionException.class,
                    () -> admin.deleteTopics(List.of("configured")).all().get());
            assertInstanceOf(PolicyViolationException.class, configured.getCause());
            admin.deleteTopics(List.of("created.topic")).all().get();
            Eventually.await(() -> !names(admin).contains("created.topic"), "the deleted topic is gone");
            ExecutionException unknown = assertThrows(ExecutionException.class,
                    () -> admin.describeTopics(List.of("created.topic")).allTopicNames().get());
            assertInstanceOf(UnknownTopicOrPartitionException.class, unknown.getCause());
        }
    }

    private static java.util.Set<String> names(Admin admin) {
        try {
            return admin.listTopics().names().get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @org.junit.jupiter.api.Test
    void adminClientListsOffsetsByTimeAndGroupsWithTheirOffsets() throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(broker.bootstrap())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>("timed", 0, BASE_TIME + i * 1000L, null, utf8("t" + i))).get();
            }
        }
        TopicPartition tp = new TopicPartition("timed", 0);
        try (Admin admin = KafkaClients.admin(broker.bootstrap())) {
            assertEquals(0, admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all().get().get(tp).offset());
            assertEquals(5, admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset());
            ListOffsetsResult.ListOffsetsResultInfo byTime =
                    admin.listOffsets(Map.of(tp, OffsetSpec.forTimestamp(BASE_TIME + 2500))).all().get().get(tp);
            assertEquals(3, byTime.offset(), "the first offset with a timestamp at or after the target");
            assertEquals(BASE_TIME + 3000, byTime.timestamp(), "with its real timestamp");
            assertEquals(-1, admin.listOffsets(Map.of(tp, OffsetSpec.forTimestamp(BASE_TIME + 99_000))).all().get()
                    .get(tp).offset(), "none that late");

            admin.alterConsumerGroupOffsets("audit", Map.of(tp, new OffsetAndMetadata(4))).all().get();
            assertEquals(4, admin.listConsumerGroupOffsets("audit").partitionsToOffsetAndMetadata().get().get(tp).offset());
            assertTrue(admin.listConsumerGroups().all().get().stream().anyMatch(g -> g.groupId().equals("audit")));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(broker.bootstrap(), null)) {
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(Map.of(tp, BASE_TIME + 1000));
            assertEquals(1, found.get(tp).offset());
            assertEquals(BASE_TIME + 1000, found.get(tp).timestamp());
        }
    }

    @org.junit.jupiter.api.Test
    void aWaitingFetchIsAnsweredAsSoonAsARecordArrives() throws Exception {
        java.util.Properties p = KafkaClients.consumerProperties(broker.bootstrap(), null);
        p.put(org.apache.kafka.clients.consumer.ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20000");
        TopicPartition tp = new TopicPartition("waiting", 1);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p);
             KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(broker.bootstrap())) {
            consumer.assign(List.of(tp));
            consumer.seekToEnd(List.of(tp));
            long end = consumer.position(tp);
            consumer.poll(Duration.ofMillis(300)); // a fetch is now parked at the end, for up to 20 s
            producer.send(new ProducerRecord<>("waiting", 1, null, utf8("wake up"))).get();
            long start = System.nanoTime();
            int got = 0;
            while (got == 0 && System.nanoTime() - start < Duration.ofSeconds(15).toNanos()) {
                got = consumer.poll(Duration.ofMillis(100)).count();
            }
            long waited = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertEquals(1, got);
            assertTrue(waited < 10_000, "answered by the append, not the 20 s deadline: " + waited + " ms");
            assertEquals(end + 1, consumer.position(tp));
        }
    }

    @org.junit.jupiter.api.Test
    void transactionsAreRefusedWithAnErrorNotAHang() {
        java.util.Properties p = KafkaClients.producerProperties(broker.bootstrap());
        p.put(org.apache.kafka.clients.producer.ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-1");
        p.put(org.apache.kafka.clients.producer.ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            long start = System.nanoTime();
            assertThrows(org.apache.kafka.common.KafkaException.class, producer::initTransactions);
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "refused promptly");
        }
    }
}
