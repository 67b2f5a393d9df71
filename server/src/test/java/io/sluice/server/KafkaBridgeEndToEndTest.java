package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import io.sluice.server.config.ConfigLoader;
import io.sluice.testing.Eventually;
import io.sluice.testing.kafka.KafkaBroker;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An MQTT 5 client's PUBLISH, with user properties, through Sluice's Kafka bridge into a real Kafka
 * 4.3.1 broker: the record carries the payload, the publisher's client id as key, and the MQTT
 * topic, QoS and user properties as headers.
 */
class KafkaBridgeEndToEndTest {
    @TempDir
    Path dir;

    @Test
    void anMqttPublishBecomesAKafkaRecordWithItsTopicQosAndUserPropertiesAsHeaders() throws Exception {
        try (KafkaBroker kafka = KafkaBroker.start(dir.resolve("kafka"))) {
            Path file = dir.resolve("sluice.conf");
            Files.writeString(file, """
                    listeners.tcp.bind = "127.0.0.1:0"
                    persistence.dir = "%s"
                    parquet.dir = "%s"
                    bridges.kafka.lake {
                      bootstrap_hosts = "%s"
                      forwards = [ { local_topic = "plant/#", kafka_topic = "plant", key = "clientid" } ]
                      compression = zstd
                    }
                    bridges.kafka.cache.mounted_file_path = "%s"
                    """.formatted(dir.resolve("state"), dir.resolve("parquet"), kafka.bootstrapServers(),
                    dir.resolve("bridges")));
            try (SluiceServer sluice = SluiceServer.start(ConfigLoader.load(file))) {
                Mqtt5BlockingClient device = Mqtt5Client.builder().identifier("press-7").serverHost("127.0.0.1")
                        .serverPort(sluice.address("tcp").getPort()).buildBlocking();
                device.connect();
                device.publishWith().topic("plant/press/7").qos(MqttQos.AT_LEAST_ONCE)
                        .payload("230 bar".getBytes(StandardCharsets.UTF_8))
                        .userProperties().add("unit", "bar").add("line", "3").applyUserProperties().send();
                device.disconnect();
                ConsumerRecord<byte[], byte[]> record = consume(kafka, "plant").get(0);
                assertEquals("230 bar", text(record.value()));
                assertEquals("press-7", text(record.key()));
                assertEquals("plant/press/7", header(record, "mqtt_topic"));
                assertEquals("1", header(record, "mqtt_qos"));
                assertEquals("bar", header(record, "unit"));
                assertEquals("3", header(record, "line"));
            }
        }
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        return record.headers().lastHeader(name) == null ? null : text(record.headers().lastHeader(name).value());
    }

    private static List<ConsumerRecord<byte[], byte[]>> consume(KafkaBroker kafka, String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            Eventually.await(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
                return !records.isEmpty();
            }, "a record in Kafka topic " + topic);
        }
        return records;
    }
}
