package io.sluice.testing.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaBrokerTest {

    /** The restart (same ports, same data) is exercised by the bridges module's Kafka outage test. */
    @Test
    void brokerServesProducersAndConsumers(@TempDir Path dir) throws Exception {
        try (KafkaBroker kafka = KafkaBroker.start(dir)) {
            assertTrue(kafka.isRunning());
            produce(kafka, "one");
            produce(kafka, "two");
            assertEquals(List.of("one", "two"), consume(kafka, 2));
            kafka.stop();
            assertFalse(kafka.isRunning());
        }
    }

    private static void produce(KafkaBroker kafka, String value) throws Exception {
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>("t", value.getBytes(StandardCharsets.UTF_8))).get();
        }
    }

    private static List<String> consume(KafkaBroker kafka, int count) {
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition("t", 0)));
            consumer.seekToBeginning(List.of(new TopicPartition("t", 0)));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return values;
    }
}
