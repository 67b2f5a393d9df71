package io.sluice.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.testing.Command;
import io.sluice.kafka.testing.KafkaClients;
import io.sluice.kafka.testing.RawKafka;
import io.sluice.kafka.testing.TestBroker;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.net.auth.PasswordAuthenticator;
import io.sluice.net.auth.PasswordFile;
import io.sluice.net.auth.ScramCredential;
import io.sluice.storage.LogSettings;
import io.sluice.streams.StreamSettings;

/**
 * SASL PLAIN and SCRAM-SHA-256 against the password file, with anonymous clients refused, and
 * topic permissions: alice reads and writes {@code secure}, bob only reads it, nobody sees {@code hidden}.
 */
class SaslTest {
    @TempDir
    static Path dir;
    static TestBroker broker;

    /** The ACL of this test, by user and topic. */
    static final KafkaAuthorizer ACL = new KafkaAuthorizer() {
        @Override
        public boolean mayRead(ClientIdentity client, String topic) {
            return topic.equals("secure") && client.username() != null;
        }

        @Override
        public boolean mayWrite(ClientIdentity client, String topic) {
            return topic.equals("secure") && "alice".equals(client.username());
        }
    };

    @BeforeAll
    static void start() throws Exception {
        Path passwords = dir.resolve("passwd");
        Map<String, ScramCredential> users = new LinkedHashMap<>();
        users.put("alice", ScramCredential.create("alice-secret".toCharArray(), 4096));
        users.put("bob", ScramCredential.create("bob-secret".toCharArray(), 4096));
        PasswordFile.write(passwords, users);
        broker = TestBroker.start(dir.resolve("data"), List.of(StreamSettings.of("secure", "secure/#", 1, LogSettings.defaults()),
                StreamSettings.of("hidden", "hidden/#", 1, LogSettings.defaults())),
                new PasswordAuthenticator(false, passwords), ACL, MqttPublisher.NONE);
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    static Properties sasl(Properties p, String mechanism, String user, String password) {
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, mechanism);
        String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        p.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + user + "\" password=\"" + password + "\";");
        return p;
    }

    static Admin admin(String mechanism, String user, String password) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        return Admin.create(sasl(p, mechanism, user, password));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PLAIN", "SCRAM-SHA-256"})
    void aUserOfThePasswordFileProducesAndConsumes(String mechanism) throws Exception {
        String value = "by " + mechanism;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                sasl(KafkaClients.producerProperties(broker.bootstrap()), mechanism, "alice", "alice-secret"))) {
            producer.send(new ProducerRecord<>("secure", value.getBytes(StandardCharsets.UTF_8))).get();
        }
        TopicPartition tp = new TopicPartition("secure", 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                sasl(KafkaClients.consumerProperties(broker.bootstrap(), null), mechanism, "bob", "bob-secret"))) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<String> values = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!values.contains(value) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
            }
            assertTrue(values.contains(value), "bob reads what alice wrote: " + values);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PLAIN", "SCRAM-SHA-256"})
    void aWrongPasswordIsRefused(String mechanism) {
        try (Admin admin = admin(mechanism, "alice", "wrong")) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> admin.listTopics().names().get());
            assertInstanceOf(SaslAuthenticationException.class, e.getCause());
        }
    }

    @Test
    void anAnonymousClientIsRefusedWhenAnonymousAccessIsOff() throws Exception {
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            assertEquals(Errors.NONE.code(), new ApiVersionsResponseData(
                    raw.call(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()), (short) 3).errorCode(),
                    "ApiVersions comes before SASL");
            raw.send(raw.request(ApiKeys.METADATA, (short) 12, new MetadataRequestData()));
            assertTrue(raw.closedByServer(), "a request before SASL closes the connection");
        }
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "3000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        try (Admin admin = Admin.create(p)) {
            assertThrows(ExecutionException.class, () -> admin.listTopics().names().get());
        }
    }

    @Test
    void theAclDecidesWhoReadsAndWritesWhichTopic() throws Exception {
        try (Admin admin = admin("PLAIN", "bob", "bob-secret")) {
            assertEquals(java.util.Set.of("secure"), admin.listTopics().names().get(), "hidden is not listed");
        }
        Properties p = sasl(KafkaClients.producerProperties(broker.bootstrap()), "PLAIN", "bob", "bob-secret");
        p.put("max.block.ms", "5000");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>("secure", new byte[] {1})).get());
            assertInstanceOf(TopicAuthorizationException.class, e.getCause());
        }
    }

    @Test
    void kcatLogsInWithPlainAndScram() throws Exception {
        String kcat = Command.require("kcat", "kcat");
        for (String mechanism : List.of("PLAIN", "SCRAM-SHA-256")) {
            Command.Result result = Command.run(List.of(kcat, "-b", broker.bootstrap(), "-L",
                    "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=" + mechanism,
                    "-X", "sasl.username=alice", "-X", "sasl.password=alice-secret"), "", 60);
            assertEquals(0, result.exitCode(), mechanism + ": " + result.stderr());
            assertTrue(result.stdout().contains("topic \"secure\""), result.stdout());
            assertFalse(result.stdout().contains("topic \"hidden\""), result.stdout());
        }
    }
}
