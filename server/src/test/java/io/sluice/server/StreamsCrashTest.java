package io.sluice.server;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import io.sluice.kafka.testing.KafkaClients;
import io.sluice.server.testing.ServerProcess;
import io.sluice.testing.Eventually;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Crash-safe streams through the real server process: an MQTT publisher (QoS 1) and an idempotent
 * Kafka producer write to one stream without pause, the server is killed with SIGKILL while they
 * do, and the Kafka producer keeps retrying until the server is back. Afterwards every MQTT message
 * whose PUBACK arrived and every Kafka record is in the stream exactly once, including the batches
 * that were appended before the kill but never acknowledged, which the producer sends again.
 */
class StreamsCrashTest {
    private static final Logger LOG = LoggerFactory.getLogger(StreamsCrashTest.class);
    private static final int IN_FLIGHT = 100;

    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private String config(int kafkaPort) {
        return "listeners.kafka.bind = \"127.0.0.1:" + kafkaPort + "\"\n"
                + "streams.dir = \"" + dir.resolve("streams") + "\"\n"
                + "streams.crash { topic = \"crash/#\", partitions = 2 }\n";
    }

    @Test
    void everyAcknowledgedRecordIsInTheStreamExactlyOnceAfterKill9() throws Exception {
        int kafkaPort = freePort();
        String bootstrap = "127.0.0.1:" + kafkaPort;
        Set<Integer> mqttAcknowledged = ConcurrentHashMap.newKeySet();
        Set<Integer> kafkaAcknowledged = ConcurrentHashMap.newKeySet();
        Set<Integer> kafkaNeverSent = ConcurrentHashMap.newKeySet();
        int kafkaSent;
        Properties p = KafkaClients.producerProperties(bootstrap);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "2048");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            try (ServerProcess first = ServerProcess.start(dir, config(kafkaPort))) {
                Eventually.await(() -> first.kafkaPort() == kafkaPort, "the Kafka listener is up");
                Mqtt5AsyncClient publisher = MqttClient.builder().useMqttVersion5().identifier("publisher")
                        .serverHost("127.0.0.1").serverPort(first.port()).buildAsync();
                publisher.connect().get(10, TimeUnit.SECONDS);
                AtomicBoolean stop = new AtomicBoolean();
                Semaphore window = new Semaphore(IN_FLIGHT);
                Thread publishing = new Thread(() -> publish(publisher, window, mqttAcknowledged, stop), "publisher");
                publishing.start();
                java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
                Thread producing = new Thread(() -> produce(producer, kafkaAcknowledged, kafkaNeverSent, sent, stop), "producer");
                producing.start();
                Eventually.await(() -> mqttAcknowledged.size() >= 1000 && kafkaAcknowledged.size() >= 1000,
                        () -> "acknowledged before the kill: " + mqttAcknowledged.size() + " MQTT, " + kafkaAcknowledged.size()
                                + " Kafka");
                first.kill();
                stop.set(true);
                publishing.join(10_000);
                Eventually.await(() -> window.availablePermits() == IN_FLIGHT, "every publish acknowledged or failed");
                LOG.info("killed with {} MQTT and {} of {} Kafka records acknowledged", mqttAcknowledged.size(),
                        kafkaAcknowledged.size(), sent.get());
                producing.join();
                kafkaSent = sent.get();
            }
            try (ServerProcess second = ServerProcess.start(dir, config(kafkaPort))) {
                producer.flush();
                int total = kafkaSent;
                Eventually.await(() -> kafkaAcknowledged.size() + kafkaNeverSent.size() == total,
                        () -> "the producer got all " + total + " records through after the restart: " + kafkaAcknowledged.size()
                                + " acknowledged, " + kafkaNeverSent.size() + " never sent");
                Map<String, Integer> stored = readAll(bootstrap);
                LOG.info("{} records stored after the restart", stored.size());
                List<String> duplicated = stored.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                        .sorted().toList();
                assertEquals(List.of(), duplicated, "records twice in the stream");
                List<Integer> missingMqtt = mqttAcknowledged.stream().filter(i -> !stored.containsKey("m-" + i)).sorted().toList();
                assertEquals(List.of(), missingMqtt, "acknowledged MQTT messages missing");
                List<Integer> missingKafka = kafkaAcknowledged.stream().filter(i -> !stored.containsKey("k-" + i)).sorted()
                        .toList();
                assertEquals(List.of(), missingKafka, "acknowledged Kafka records missing");
                assertEquals(143, second.terminate());
            }
        }
    }

    /**
     * Sends k-0, k-1, ... until stopped, a little at a time; a record counts once its send is
     * acknowledged. A send made while the broker is dead can wait for the partition's metadata
     * longer than {@code max.block.ms} and fail before the record was ever handed to a broker: that
     * record is in {@code neverSent}. Any other failure fails the test.
     */
    private static void produce(KafkaProducer<byte[], byte[]> producer, Set<Integer> acknowledged, Set<Integer> neverSent,
                                java.util.concurrent.atomic.AtomicInteger sent, AtomicBoolean stop) {
        for (int i = 0; !stop.get(); i++) {
            int record = i;
            producer.send(new ProducerRecord<>("crash", i % 2, ("crash/kafka/" + (i % 2)).getBytes(StandardCharsets.UTF_8),
                    ("k-" + i).getBytes(StandardCharsets.UTF_8)), (metadata, error) -> {
                        if (error == null) {
                            acknowledged.add(record);
                        } else if (error instanceof TimeoutException && String.valueOf(error.getMessage()).contains("not present in metadata")) {
                            neverSent.add(record);
                        } else {
                            LOG.error("k-{} failed", record, error);
                        }
                    });
            sent.incrementAndGet();
            if (i % 20 == 0) {
                LockSleep.pause(); // keeps batches small and in flight when the kill lands
            }
        }
    }

    /** Publishes m-0, m-1, ... with at most {@value #IN_FLIGHT} unacknowledged, recording each PUBACK. */
    private static void publish(Mqtt5AsyncClient publisher, Semaphore window, Set<Integer> acknowledged, AtomicBoolean stop) {
        for (int i = 0; !stop.get(); i++) {
            try {
                if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    i--;
                    continue;
                }
            } catch (InterruptedException e) {
                return;
            }
            int message = i;
            publisher.publishWith().topic("crash/mqtt/" + (i % 4)).qos(MqttQos.AT_LEAST_ONCE)
                    .payload(("m-" + i).getBytes(StandardCharsets.UTF_8)).send()
                    .whenComplete((result, error) -> {
                        if (error == null) {
                            acknowledged.add(message);
                        }
                        window.release();
                    });
        }
    }

    /** Every record of both partitions, by value, with how often it appears. */
    private static Map<String, Integer> readAll(String bootstrap) {
        Map<String, Integer> values = new HashMap<>();
        List<TopicPartition> partitions = List.of(new TopicPartition("crash", 0), new TopicPartition("crash", 1));
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(bootstrap, null)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.merge(new String(r.value(), StandardCharsets.UTF_8),
                        1, Integer::sum));
            }
        }
        return values;
    }

    /** Lets the kill land while records are still flowing, without a fixed sleep in the assertions. */
    private static final class LockSleep {
        static void pause() {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }
}
