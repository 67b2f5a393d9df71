package io.sluice.server;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.Pki;
import io.sluice.kafka.testing.KafkaClients;
import io.sluice.server.config.ConfigLoader;
import io.sluice.streams.Stream;
import io.sluice.streams.StreamRecords;
import io.sluice.testing.Eventually;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Streams through the whole server: MQTT clients on one side, Kafka clients on the other. */
class StreamsEndToEndTest {
    @TempDir
    Path dir;

    private SluiceServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private SluiceServer start(String config) throws IOException {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, "listeners.tcp.bind = \"127.0.0.1:0\"\n"
                + "listeners.kafka.bind = \"127.0.0.1:0\"\n"
                + "persistence.enabled = false\n"
                + "streams.dir = \"" + dir.resolve("streams") + "\"\n" + config);
        server = SluiceServer.start(ConfigLoader.load(file));
        return server;
    }

    private String bootstrap() {
        return "127.0.0.1:" + server.address("kafka").getPort();
    }

    private Mqtt5BlockingClient mqtt(String id) {
        Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(server.address("tcp").getPort()).buildBlocking();
        client.connect();
        return client;
    }

    private static String utf8(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    /** Every record of a topic's partitions from the beginning, until {@code count} came. */
    private List<ConsumerRecord<byte[], byte[]>> consume(String topic, int partitions, int count) {
        List<TopicPartition> assigned = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            assigned.add(new TopicPartition(topic, p));
        }
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(bootstrap(), null)) {
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        assertEquals(count, records.size(), "records of " + topic);
        return records;
    }

    @Test
    void mqttPublishesAreKafkaRecordsWithTopicKeyPayloadValueAndMqttHeaders() throws Exception {
        start("streams.sensors { topic = \"sensors/#\", partitions = 3 }\n");
        Mqtt5BlockingClient device = mqtt("device-7");
        for (int i = 0; i < 60; i++) {
            device.publishWith().topic("sensors/t" + (i % 4)).qos(MqttQos.fromCode(i % 3)).retain(i == 59)
                    .userProperties().add("unit", "C").add("seq", Integer.toString(i)).applyUserProperties()
                    .payload(Integer.toString(i).getBytes(StandardCharsets.UTF_8)).send();
        }
        device.publishWith().topic("other/t").payload("not captured".getBytes(StandardCharsets.UTF_8)).send();
        List<ConsumerRecord<byte[], byte[]>> records = consume("sensors", 3, 60);
        Map<String, Integer> lastByTopic = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            String topic = utf8(record.key());
            int seq = Integer.parseInt(utf8(record.value()));
            assertEquals("sensors/t" + (seq % 4), topic);
            assertEquals(Integer.toString(seq % 3), utf8(record.headers().lastHeader(StreamRecords.QOS).value()));
            assertEquals(seq == 59 ? "1" : "0", utf8(record.headers().lastHeader(StreamRecords.RETAIN).value()));
            assertEquals("device-7", utf8(record.headers().lastHeader(StreamRecords.CLIENT_ID).value()));
            assertEquals("C", utf8(record.headers().lastHeader("unit").value()));
            assertEquals(Integer.toString(seq), utf8(record.headers().lastHeader("seq").value()));
            assertTrue(Math.abs(System.currentTimeMillis() - record.timestamp()) < 60_000, "the capture time");
            Integer previous = lastByTopic.put(topic, seq);
            assertTrue(previous == null || previous < seq, "order kept per MQTT topic");
        }
        device.disconnect();
    }

    @Test
    void kafkaRecordsReachMqttSubscribersAndOtherCapturesButAreStoredOnceInTheirStream() throws Exception {
        start("streams.plant { topic = \"plant/#\" }\nstreams.everything { topic = \"#\" }\n");
        Mqtt5BlockingClient subscriber = mqtt("dashboard");
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(subscriber);
        subscriber.subscribeWith().topicFilter("#").qos(MqttQos.AT_LEAST_ONCE).send();
        try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(bootstrap())) {
            producer.send(new ProducerRecord<>("plant", 0, "plant/line1".getBytes(StandardCharsets.UTF_8),
                    "42".getBytes(StandardCharsets.UTF_8), List.<Header>of(new RecordHeader("unit", "bar".getBytes(StandardCharsets.UTF_8))))).get();
            producer.send(new ProducerRecord<>("plant", 0, "elsewhere/x".getBytes(StandardCharsets.UTF_8),
                    "outside the filter".getBytes(StandardCharsets.UTF_8))).get();
            producer.send(new ProducerRecord<>("plant", 0, "plant/#".getBytes(StandardCharsets.UTF_8),
                    "not a topic name".getBytes(StandardCharsets.UTF_8))).get();
            producer.send(new ProducerRecord<>("plant", 0, null, "no key".getBytes(StandardCharsets.UTF_8))).get();
        }
        Mqtt5Publish received = inbox.next();
        assertEquals("plant/line1", received.getTopic().toString());
        assertEquals("42", utf8(received.getPayloadAsBytes()));
        assertEquals(MqttQos.AT_LEAST_ONCE, received.getQos());
        assertEquals("bar", received.getUserProperties().asList().get(0).getValue().toString());
        Stream plant = server.streams().get("plant");
        Stream everything = server.streams().get("everything");
        assertEquals(4, plant.endOffset(0), "all four records in their stream, the published one once");
        Eventually.await(() -> everything.endOffset(0) == 1, "the other stream captured the one published record");
        assertNull(inbox.poll(300), "the others went to no MQTT subscriber");
        subscriber.disconnect();
    }

    @Test
    void aRocksdbStreamTakesMqttAndKafkaRecordsAndServesThemAfterARestart() throws Exception {
        String config = "streams.enable_cache = true\n"
                + "streams.plant { topic = \"plant/#\", partitions = 2, engine = rocksdb, flush = always }\n";
        start(config);
        Mqtt5BlockingClient device = mqtt("press-1");
        for (int i = 0; i < 10; i++) {
            device.publishWith().topic("plant/press" + (i % 2)).qos(MqttQos.AT_LEAST_ONCE)
                    .payload(("m" + i).getBytes(StandardCharsets.UTF_8)).send();
        }
        device.disconnect();
        try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(bootstrap())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("plant", i % 2, ("plant/k" + i).getBytes(StandardCharsets.UTF_8),
                        ("k" + i).getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        assertEquals(20, consume("plant", 2, 20).size());

        server.close();
        server = null;
        start(config);
        List<String> values = consume("plant", 2, 20).stream().map(r -> utf8(r.value())).sorted().toList();
        assertEquals(List.of("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9",
                "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"), values);
        assertTrue(Files.isDirectory(dir.resolve("streams").resolve("rocksdb")), "the partitions live in RocksDB");
    }

    @Test
    void aTopicCreatedByKafkaCapturesItsMqttTopicAndIsThereAfterARestart() throws Exception {
        start("");
        try (Admin admin = KafkaClients.admin(bootstrap())) {
            admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1))).all().get();
        }
        Mqtt5BlockingClient shop = mqtt("shop");
        shop.publishWith().topic("orders").qos(MqttQos.AT_LEAST_ONCE).payload("first".getBytes(StandardCharsets.UTF_8)).send();
        shop.disconnect();
        assertEquals("first", utf8(consume("orders", 2, 1).get(0).value()));

        server.close();
        server = null;
        start("");
        try (Admin admin = KafkaClients.admin(bootstrap())) {
            assertTrue(admin.listTopics().names().get().contains("orders"));
        }
        Mqtt5BlockingClient again = mqtt("shop");
        again.publishWith().topic("orders").qos(MqttQos.AT_LEAST_ONCE).payload("second".getBytes(StandardCharsets.UTF_8)).send();
        again.disconnect();
        assertEquals(2, consume("orders", 2, 2).size(), "the created stream still captures after the restart");
        try (Admin admin = KafkaClients.admin(bootstrap())) {
            admin.deleteTopics(List.of("orders")).all().get();
        }
        assertNull(server.streams().get("orders"));
    }

    @Test
    void theAclDecidesWhatKafkaProducersMayPublishIntoMqtt() throws Exception {
        Path acl = dir.resolve("acl.hocon");
        Files.writeString(acl, "rules = [\n"
                + "  { permit = deny, action = publish, topics = [\"plant/secret\"] }\n"
                + "  { permit = allow, action = pubsub, topics = [\"#\"] }\n"
                + "]\n");
        start("auth { acl_file = \"" + acl + "\" }\nstreams.plant { topic = \"plant/#\" }\n");
        Mqtt5BlockingClient subscriber = mqtt("watcher");
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(subscriber);
        subscriber.subscribeWith().topicFilter("plant/#").send();
        try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(bootstrap())) {
            producer.send(new ProducerRecord<>("plant", "plant/secret".getBytes(StandardCharsets.UTF_8),
                    "hidden".getBytes(StandardCharsets.UTF_8))).get();
            producer.send(new ProducerRecord<>("plant", "plant/open".getBytes(StandardCharsets.UTF_8),
                    "shown".getBytes(StandardCharsets.UTF_8))).get();
        }
        assertEquals("plant/open", inbox.next().getTopic().toString(), "the denied topic never reached MQTT");
        assertEquals(2, server.streams().get("plant").endOffset(0), "both are in the stream, which the producer may write");
        subscriber.disconnect();
    }

    @Test
    void theKafkaListenerSpeaksTlsWithTheKeysOfListenersSsl() throws Exception {
        Pki pki = Pki.create(dir, "Kafka CA");
        Pki.Issued broker = pki.server("broker");
        start("listeners.ssl { bind = \"127.0.0.1:0\", keyfile = \"" + broker.keyFile() + "\", certfile = \""
                + broker.certFile() + "\" }\nlisteners.kafka.ssl = true\nstreams.secure { topic = \"secure/#\" }\n");
        Properties tls = KafkaClients.producerProperties(bootstrap());
        tls.put("security.protocol", "SSL");
        tls.put("ssl.truststore.type", "PEM");
        tls.put("ssl.truststore.location", pki.caFile().toString());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(tls)) {
            producer.send(new ProducerRecord<>("secure", "over TLS".getBytes(StandardCharsets.UTF_8))).get();
        }
        assertEquals(1, server.streams().get("secure").endOffset(0));
        Properties plain = KafkaClients.producerProperties(bootstrap());
        plain.put("max.block.ms", "3000");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(plain)) {
            assertThrows(Exception.class, () -> producer.send(new ProducerRecord<>("secure", new byte[] {1})).get(),
                    "a plaintext client gets nowhere on the TLS listener");
        }
    }
}
