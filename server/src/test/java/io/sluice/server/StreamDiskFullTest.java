package io.sluice.server;

import static io.sluice.server.testing.IdPayloads.id;
import static io.sluice.server.testing.IdPayloads.publishAcknowledged;
import static io.sluice.server.testing.IdPayloads.publishOnFullDisk;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.sluice.kafka.testing.KafkaClients;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.testing.UnstoredMqtt311Publish;
import io.sluice.streams.Stream;
import io.sluice.streams.StreamCounter;
import io.sluice.testing.Eventually;
import io.sluice.testing.SmallDisk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk under a stream: the stream's directory is a small tmpfs that a ballast file fills. A
 * QoS 1 PUBLISH the stream cannot append is not acknowledged as stored (MQTT 5: PUBACK 0x97; MQTT
 * 3.1.1: no PUBACK, and the client sends it again after reconnecting); the failed appends are
 * counted; once the ballast is deleted the stream appends again without a restart, and a Kafka
 * consumer reading the stream from the start finds every acknowledged message.
 */
class StreamDiskFullTest {

    @TempDir
    Path dir;
    @RegisterExtension
    final SmallDisk disk = SmallDisk.ofSize("4m");
    private SluiceServer server;

    @AfterEach
    void closeServer() {
        if (server != null) {
            server.close();
        }
    }

    private Mqtt5BlockingClient mqtt5(String id) {
        Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(server.address("tcp").getPort()).buildBlocking();
        client.connect();
        return client;
    }

    /** The ids of every record of the stream's one partition, read from the start by a Kafka consumer. */
    private Set<String> consumeAll(long records) {
        TopicPartition partition = new TopicPartition("full", 0);
        Set<String> ids = new HashSet<>();
        long[] read = {0};
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer("127.0.0.1:" + server.address("kafka").getPort(),
                null)) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            Eventually.await(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> {
                    ids.add(id(r.value()));
                    read[0]++;
                });
                return read[0] >= records;
            }, () -> read[0] + " of " + records + " records read");
        }
        return ids;
    }

    @Test
    void aPublishTheStreamCannotAppendIsNotAcknowledgedAndAppendsResumeOnceSpaceIsFreed() throws Exception {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, """
                listeners.tcp.bind = "127.0.0.1:0"
                listeners.kafka.bind = "127.0.0.1:0"
                persistence.enabled = false
                parquet.dir = "%s"
                streams.dir = "%s"
                streams.full { topic = "data/#", partitions = 1, segment_bytes = 1MB }
                """.formatted(dir.resolve("parquet"), disk.path().resolve("streams")));
        server = SluiceServer.start(ConfigLoader.load(file));
        Stream stream = server.streams().get("full");
        Mqtt5BlockingClient publisher = mqtt5("publisher");
        Set<String> acknowledged = new HashSet<>();
        publishAcknowledged(publisher, "before", 20, "the disk has room", acknowledged);

        disk.fill();
        publishOnFullDisk(publisher, acknowledged);
        assertTrue(stream.counter(StreamCounter.APPEND_FAILURES) >= 1, "failed appends are counted");

        UnstoredMqtt311Publish mqtt3 = UnstoredMqtt311Publish.send(server, disk, "mqtt3", acknowledged);

        disk.free();
        publishAcknowledged(publisher, "after", 20, "appends resumed without a restart", acknowledged);
        acknowledged.add(mqtt3.reconnectAndAssertAcknowledged());
        mqtt3.close();
        publisher.disconnect();

        Set<String> stored = consumeAll(stream.endOffset(0) - stream.startOffset(0));
        for (String id : acknowledged) {
            assertTrue(stored.contains(id), "acknowledged message " + id + " is in the stream");
        }
    }
}
