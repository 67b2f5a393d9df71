package io.sluice.bridges.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.BridgeState;
import io.sluice.bridges.MessageProperties;
import io.sluice.bridges.UserProperty;
import io.sluice.bridges.testing.BridgeHarness;
import io.sluice.testing.Eventually;
import io.sluice.testing.kafka.KafkaBroker;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A Kafka producer bridge against a real Apache Kafka 4.3.1 broker (KRaft, child process). */
class KafkaBridgeTest {
    @TempDir
    Path dir;

    @Test
    void forwardsWithKeysAndHeadersAndLosesNothingThroughABrokerOutage() throws Exception {
        try (KafkaBroker kafka = KafkaBroker.start(dir.resolve("kafka"));
             BridgeHarness bridge = BridgeHarness.kafka(settings(kafka), dir.resolve("cache")).start()) {
            Eventually.await(() -> bridge.bridge().state() == BridgeState.CONNECTED, () -> "the bridge connects: "
                    + bridge.bridge().status());
            bridge.publish(message("sensors/a", "first", 1, List.of(new UserProperty("site", "berlin"),
                    new UserProperty("line", "3"))));
            bridge.publish(message("alarms/fire", "!", 0, List.of()));
            List<ConsumerRecord<byte[], byte[]>> telemetry = consume(kafka, "telemetry", 1);
            ConsumerRecord<byte[], byte[]> first = telemetry.get(0);
            assertEquals("first", text(first.value()));
            assertEquals("sensors/a", text(first.key()), "key = topic");
            assertEquals("sensors/a", header(first, "mqtt_topic"));
            assertEquals("1", header(first, "mqtt_qos"));
            assertEquals("berlin", header(first, "site"));
            assertEquals("3", header(first, "line"));
            ConsumerRecord<byte[], byte[]> alarm = consume(kafka, "alarms", 1).get(0);
            assertNull(alarm.key(), "key = none");
            assertEquals("0", header(alarm, "mqtt_qos"));

            kafka.stop();
            int count = 2000;
            for (int i = 0; i < count; i++) {
                bridge.publish(message("sensors/" + (char) ('a' + i % 2), Integer.toString(i), 1, List.of()));
            }
            Eventually.await(() -> bridge.released() == count + 1, "every QoS 1 publisher acknowledged while Kafka is down");
            Eventually.await(() -> !bridge.bridge().state().isConnected(), () -> "the bridge notices: "
                    + bridge.bridge().status());
            assertTrue(bridge.bridge().status().backlog() > 0);

            kafka.restart();
            List<ConsumerRecord<byte[], byte[]>> all = consume(kafka, "telemetry", count + 1);
            Eventually.await(() -> bridge.bridge().status().backlog() == 0, () -> "the backlog empties: "
                    + bridge.bridge().status());
            Set<String> distinct = new HashSet<>();
            Map<String, Integer> highest = new java.util.HashMap<>();
            for (ConsumerRecord<byte[], byte[]> record : all.subList(1, all.size())) {
                String key = text(record.key());
                int value = Integer.parseInt(text(record.value()));
                if (distinct.add(text(record.value()))) {
                    assertTrue(value > highest.getOrDefault(key, -1), key + ": " + value + " out of order");
                    highest.put(key, value);
                }
            }
            assertEquals(count, distinct.size(), "every message arrived");
            System.out.println("Kafka outage: " + (all.size() - 1 - count) + " duplicates, resent "
                    + bridge.bridge().counters().get(BridgeCounter.RESENT));
            assertFalse(bridge.bridge().counters().get(BridgeCounter.REFUSED_BY_REMOTE) > 0);
        }
    }

    private static KafkaBridgeSettings settings(KafkaBroker kafka) {
        return new KafkaBridgeSettings("cloud", kafka.bootstrapServers(), List.of(
                new KafkaBridgeSettings.KafkaForward("sensors/#", "telemetry", KafkaBridgeSettings.KeySource.TOPIC),
                new KafkaBridgeSettings.KafkaForward("alarms/#", "alarms", KafkaBridgeSettings.KeySource.NONE)),
                "all", "zstd", 5, 65536, "sluice-test", 500, 5000, 10_000, null);
    }

    private static BridgeMessage message(String topic, String payload, int qos, List<UserProperty> properties) {
        return new BridgeMessage(topic, payload.getBytes(StandardCharsets.UTF_8), qos, false,
                properties.isEmpty() ? MessageProperties.NONE
                        : new MessageProperties(-1, -1, null, null, null, properties), "device-1",
                System.currentTimeMillis());
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : text(header.value());
    }

    /** Reads topic partition 0 from the start until at least {@code count} records came. */
    private static List<ConsumerRecord<byte[], byte[]>> consume(KafkaBroker kafka, String topic, int count) {
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            Eventually.await(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
                return records.size() >= count;
            }, () -> count + " records in " + topic + ", got " + records.size());
        }
        return records;
    }
}
