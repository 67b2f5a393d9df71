package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.kafka.testing.KafkaClients;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.testing.SmallDisk;
import io.sluice.streams.Stream;
import io.sluice.streams.StreamCounter;
import io.sluice.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk under a stream: the stream's directory is a small tmpfs that a ballast file fills. A
 * QoS 1 PUBLISH the stream cannot append is not acknowledged as stored (MQTT 5: PUBACK 0x97; MQTT
 * 3.1.1: no PUBACK, and the client sends it again after reconnecting); the failed appends are
 * counted; once the ballast is deleted the stream appends again without a restart, and a Kafka
 * consumer reading the stream from the start finds every acknowledged message.
 */
class StreamDiskFullTest {
    private static final int PAYLOAD_BYTES = 8 * 1024;

    @TempDir
    Path dir;
    private SmallDisk disk;
    private SluiceServer server;

    @BeforeEach
    void mountSmallDisk() throws Exception {
        disk = SmallDisk.mount(dir.resolve("disk"), "4m");
    }

    @AfterEach
    void unmount() {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            disk.close();
        }
    }

    private Mqtt5BlockingClient mqtt5(String id) {
        Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(server.address("tcp").getPort()).buildBlocking();
        client.connect();
        return client;
    }

    /** A payload that starts with its id; the rest keeps the disk filling. */
    private static byte[] payload(String id) {
        byte[] payload = new byte[PAYLOAD_BYTES];
        byte[] head = (id + "|").getBytes(StandardCharsets.UTF_8);
        System.arraycopy(head, 0, payload, 0, head.length);
        return payload;
    }

    private static String id(byte[] payload) {
        String text = new String(payload, 0, Math.min(payload.length, 32), StandardCharsets.ISO_8859_1);
        return text.substring(0, text.indexOf('|'));
    }

    /** Publishes with QoS 1; true for PUBACK success, false for 0x97 Quota exceeded. */
    private static boolean publish(Mqtt5BlockingClient client, String id) {
        try {
            client.publishWith().topic("data/x").qos(MqttQos.AT_LEAST_ONCE).payload(payload(id)).send();
            return true;
        } catch (Mqtt5PubAckException e) {
            assertEquals(Mqtt5PubAckReasonCode.QUOTA_EXCEEDED, e.getMqttMessage().getReasonCode());
            return false;
        }
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
        for (int i = 0; i < 20; i++) {
            assertTrue(publish(publisher, "before-" + i));
            acknowledged.add("before-" + i);
        }

        Path ballast = disk.fill();
        int refused = 0;
        for (int i = 0; i < 10; i++) {
            if (publish(publisher, "full-" + i)) {
                acknowledged.add("full-" + i);
            } else {
                refused++;
            }
        }
        assertTrue(refused >= 9, refused + " of 10 publishes were refused with 0x97 on a full disk");
        assertTrue(stream.counter(StreamCounter.APPEND_FAILURES) >= 1, "failed appends are counted");

        long notStoredBefore = server.broker().metrics().get(BrokerCounter.PUBLISH_NOT_STORED);
        MqttAsyncClient paho = new MqttAsyncClient("tcp://127.0.0.1:" + server.address("tcp").getPort(), "paho",
                new MemoryPersistence());
        MqttConnectOptions options = new MqttConnectOptions();
        options.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        options.setCleanSession(false);
        paho.connect(options).waitForCompletion(10_000);
        IMqttDeliveryToken mqtt3 = paho.publish("data/x", payload("mqtt3-0"), 1, false);
        Eventually.await(() -> server.broker().metrics().get(BrokerCounter.PUBLISH_NOT_STORED) > notStoredBefore,
                "the MQTT 3.1.1 PUBLISH is counted as not stored");
        assertFalse(mqtt3.isComplete(), "an MQTT 3.1.1 publisher gets no PUBACK for a message not stored");

        Files.delete(ballast);
        for (int i = 0; i < 20; i++) {
            assertTrue(publish(publisher, "after-" + i), "appends resumed without a restart: after-" + i);
            acknowledged.add("after-" + i);
        }
        paho.disconnectForcibly(0, 5_000);
        paho.connect(options).waitForCompletion(10_000);
        mqtt3.waitForCompletion(30_000);
        assertTrue(mqtt3.isComplete() && mqtt3.getException() == null, "the resent MQTT 3.1.1 PUBLISH is acknowledged");
        acknowledged.add("mqtt3-0");
        paho.disconnect().waitForCompletion(10_000);
        paho.close();
        publisher.disconnect();

        Set<String> stored = consumeAll(stream.endOffset(0) - stream.startOffset(0));
        for (String id : acknowledged) {
            assertTrue(stored.contains(id), "acknowledged message " + id + " is in the stream");
        }
    }
}
