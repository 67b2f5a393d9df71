package io.sluice.bridges.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.BridgeState;
import io.sluice.bridges.testing.BridgeHarness;
import io.sluice.testing.Eventually;
import io.sluice.testing.kafka.KafkaBroker;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Kafka bridge's {@code security { }} against a real Apache Kafka broker with three secured
 * listeners: SASL_PLAINTEXT (PLAIN and SCRAM-SHA-256), SASL_SSL (SCRAM-SHA-512) and SSL, its
 * certificate made by the JDK's {@code keytool}. Each way in delivers; a wrong password and a
 * certificate the bridge cannot verify keep it out, counted and with the reason in its status.
 */
class KafkaBridgeSecurityTest {
    private static final String PASSWORD = "alice-secret";

    @TempDir
    static Path shared;
    @TempDir
    Path dir;
    private static KafkaBroker kafka;
    private static Path brokerCa;
    private static Path otherCa;

    @BeforeAll
    static void startKafka() throws Exception {
        Path store = shared.resolve("broker.p12");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", "changeit", "-keypass", "changeit");
        brokerCa = shared.resolve("broker-ca.pem");
        keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", store.toString(), "-storepass", "changeit",
                "-file", brokerCa.toString());
        Path other = shared.resolve("other.p12");
        keytool("-genkeypair", "-alias", "other", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", other.toString(), "-storepass", "changeit", "-keypass", "changeit");
        otherCa = shared.resolve("other-ca.pem");
        keytool("-exportcert", "-rfc", "-alias", "other", "-keystore", other.toString(), "-storepass", "changeit",
                "-file", otherCa.toString());
        String scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;";
        kafka = KafkaBroker.start(shared.resolve("kafka"), List.of(), List.of(
                new KafkaBroker.Listener("SASL", "SASL_PLAINTEXT", List.of(
                        "listener.name.sasl.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256",
                        "listener.name.sasl.plain.sasl.jaas.config="
                                + "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\""
                                + PASSWORD + "\";",
                        "listener.name.sasl.scram-sha-256.sasl.jaas.config=" + scram)),
                new KafkaBroker.Listener("SECURE", "SASL_SSL", withKeyStore("secure", store, List.of(
                        "listener.name.secure.sasl.enabled.mechanisms=SCRAM-SHA-512",
                        "listener.name.secure.scram-sha-512.sasl.jaas.config=" + scram))),
                new KafkaBroker.Listener("TLS", "SSL", withKeyStore("tls", store, List.of()))),
                List.of("SCRAM-SHA-256=[name=alice,password=" + PASSWORD + "]",
                        "SCRAM-SHA-512=[name=alice,password=" + PASSWORD + "]"));
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PLAIN over SASL_PLAINTEXT", "SCRAM-SHA-256 over SASL_PLAINTEXT",
            "SCRAM-SHA-512 over SASL_SSL", "TLS"})
    void forwardsThroughASecuredListener(String way) throws Exception {
        String mechanism = way.startsWith("TLS") ? null : way.substring(0, way.indexOf(' '));
        boolean tls = way.endsWith("SSL") || way.equals("TLS");
        String listener = way.equals("TLS") ? "TLS" : tls ? "SECURE" : "SASL";
        String topic = "secured-" + Math.abs(way.hashCode());
        var security = new KafkaBridgeSettings.Security(mechanism, mechanism == null ? null : "alice",
                mechanism == null ? null : PASSWORD, tls, tls ? brokerCa : null, null, null, null, true);
        try (BridgeHarness bridge = BridgeHarness.kafka(settings(listener, topic, security), dir.resolve("cache"))
                .start()) {
            Eventually.await(() -> bridge.bridge().state() == BridgeState.CONNECTED, () -> "the bridge connects "
                    + way + ": " + bridge.bridge().status());
            bridge.publish("device", "sensors/a", "over " + way, 1);
            assertEquals(List.of("over " + way), consume(topic, 1));
            Eventually.await(() -> bridge.bridge().status().backlog() == 0, "the backlog empties");
        }
    }

    @Test
    void aWrongPasswordKeepsTheBridgeOutAndSaysWhy() throws Exception {
        var security = new KafkaBridgeSettings.Security("SCRAM-SHA-256", "alice", "wrong", false, null, null, null,
                null, true);
        assertRefused(security, "SASL", "Authentication");
    }

    @Test
    void aBrokerCertificateTheBridgeCannotVerifyKeepsItOut() throws Exception {
        var security = new KafkaBridgeSettings.Security(null, null, null, true, otherCa, null, null, null, true);
        assertRefused(security, "TLS", "SSL");
    }

    private void assertRefused(KafkaBridgeSettings.Security security, String listener, String reason) {
        try (BridgeHarness bridge = BridgeHarness.kafka(settings(listener, "refused", security), dir.resolve("cache"))
                .start()) {
            bridge.publish("device", "sensors/a", "kept", 1);
            Eventually.await(() -> bridge.bridge().counters().get(BridgeCounter.CONNECT_FAILURES) >= 1,
                    () -> "the attempt fails: " + bridge.bridge().status());
            String error = bridge.bridge().status().lastError();
            assertTrue(error != null && error.contains(reason), "the reason is given: " + error);
            assertFalse(bridge.bridge().state().isConnected());
            assertEquals(0, bridge.bridge().counters().get(BridgeCounter.CONNECTS));
            assertEquals(1, bridge.bridge().status().backlog(), "the message waits in the backlog");
        }
    }

    private static KafkaBridgeSettings settings(String listener, String topic, KafkaBridgeSettings.Security security) {
        return new KafkaBridgeSettings("secured", kafka.bootstrapServers(listener), List.of(
                new KafkaBridgeSettings.KafkaForward("sensors/#", topic, KafkaBridgeSettings.KeySource.TOPIC)),
                "all", "none", 5, 65536, "sluice-test", 500, 5000, 10_000, security);
    }

    private static List<String> withKeyStore(String listener, Path store, List<String> more) {
        List<String> lines = new ArrayList<>(more);
        String prefix = "listener.name." + listener + ".ssl.";
        lines.add(prefix + "keystore.type=PKCS12");
        lines.add(prefix + "keystore.location=" + store);
        lines.add(prefix + "keystore.password=changeit");
        lines.add(prefix + "key.password=changeit");
        return lines;
    }

    /** The values of partition 0 of {@code topic}, read over the PLAINTEXT listener until {@code count} came. */
    private static List<String> consume(String topic, int count) {
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            Eventually.await(() -> {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    values.add(new String(record.value(), StandardCharsets.UTF_8));
                }
                return values.size() >= count;
            }, () -> count + " records in " + topic + ", got " + values);
        }
        return values;
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
        }
    }
}
