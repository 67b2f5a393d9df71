package io.sluice.server;

import static io.sluice.server.testing.IdPayloads.id;
import static io.sluice.server.testing.IdPayloads.payload;
import static io.sluice.server.testing.IdPayloads.publishAcknowledged;
import static io.sluice.server.testing.IdPayloads.publishOnFullDisk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubRecException;
import com.hivemq.client.mqtt.mqtt5.message.publish.pubrec.Mqtt5PubRecReasonCode;
import io.sluice.exchange.Exchange;
import io.sluice.exchange.ExchangeCounter;
import io.sluice.parquet.DuckDb;
import io.sluice.parquet.StoreCounter;
import io.sluice.ringbus.RingCounter;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.testing.UnstoredMqtt311Publish;
import io.sluice.testing.Eventually;
import io.sluice.testing.SmallDisk;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk under the broker: the write-ahead log, the Parquet files and the broker state live on
 * a 4 MiB tmpfs, which a ballast file then fills. A QoS 1 PUBLISH the exchange cannot log is not
 * acknowledged as stored (MQTT 5: PUBACK 0x97; MQTT 3.1.1: no PUBACK, and the client sends it again
 * after reconnecting); forwarding goes on; {@code /health} and {@code $SYS} say why; once the ballast
 * is deleted everything resumes without a restart, and every acknowledged message is in Parquet.
 * Mounting needs root (and CAP_SYS_ADMIN); elsewhere the test is skipped, saying so.
 */
class DiskFullTest {

    @TempDir
    Path dir;
    @RegisterExtension
    final SmallDisk disk = SmallDisk.ofSize("4m");
    private SluiceServer server;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void closeServer() {
        if (server != null) {
            server.close();
        }
    }

    private void start() throws IOException {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, """
                listeners.tcp.bind = "127.0.0.1:0"
                http_server.port = 0
                system.sys_interval = 1s
                persistence.dir = "%s"
                parquet.dir = "%s"
                exchange_client.full {
                  exchange_url = "tcp://127.0.0.1:*"
                  exchange {
                    name = "full"
                    topic = "data/#"
                    durability = wal
                    flush_interval = 100ms
                    ringbus { cap = 100 }
                    parquet { file_roll_interval = 100ms }
                  }
                }
                """.formatted(disk.path().resolve("state"), disk.path().resolve("parquet")));
        server = SluiceServer.start(ConfigLoader.load(file));
    }

    private Mqtt5BlockingClient mqtt5(String id) {
        Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(server.address("tcp").getPort()).buildBlocking();
        client.connect();
        return client;
    }

    private HttpResponse<String> health() throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + server.httpAddress().getPort() + "/health");
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

    private int healthStatus() {
        try {
            return health().statusCode();
        } catch (Exception e) {
            throw new IllegalStateException("GET /health failed", e);
        }
    }

    @Test
    void aPublishTheBrokerCannotStoreIsNotAcknowledgedAndEverythingResumesOnceSpaceIsFreed() throws Exception {
        start();
        Exchange exchange = server.exchanges().get("full");
        Set<String> forwarded = ConcurrentHashMap.newKeySet();
        Mqtt5BlockingClient subscriber = mqtt5("subscriber");
        subscriber.toAsync().subscribeWith().topicFilter("data/#").qos(MqttQos.AT_LEAST_ONCE)
                .callback(p -> forwarded.add(id(p.getPayloadAsBytes()))).send().get(10, TimeUnit.SECONDS);
        Set<String> sysHealth = ConcurrentHashMap.newKeySet();
        subscriber.toAsync().subscribeWith().topicFilter("$SYS/broker/exchanges/full/health")
                .callback(p -> sysHealth.add(new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8)))
                .send().get(10, TimeUnit.SECONDS);
        Mqtt5BlockingClient publisher = mqtt5("publisher");
        Set<String> acknowledged = new HashSet<>();
        publishAcknowledged(publisher, "before", 20, "the disk has room", acknowledged);
        Eventually.await(() -> exchange.counter(StoreCounter.RECORDS_WRITTEN) == 20, "the first 20 messages in Parquet");

        disk.fill();
        int refused = publishOnFullDisk(publisher, acknowledged);
        Mqtt5PubRecException qos2 = assertThrows(Mqtt5PubRecException.class, () -> publisher.publishWith().topic("data/x")
                .qos(MqttQos.EXACTLY_ONCE).payload(payload("full-qos2")).send());
        assertEquals(Mqtt5PubRecReasonCode.QUOTA_EXCEEDED, qos2.getMqttMessage().getReasonCode());
        Eventually.await(() -> forwarded.containsAll(Set.of("full-9", "full-qos2")), "forwarding goes on while the disk is full");
        assertTrue(exchange.counter(ExchangeCounter.WAL_RECEIPTS_REFUSED) >= refused);
        assertTrue(exchange.counter(RingCounter.REJECTED_UNLOGGED) >= refused - 1, "capture refusals are counted");
        HttpResponse<String> down = health();
        assertEquals(503, down.statusCode());
        assertTrue(down.body().contains("exchange \\u0027full\\u0027: write-ahead log") && down.body().contains("refusing messages"),
                down.body());
        Eventually.await(() -> sysHealth.stream().anyMatch(h -> h.contains("refusing messages")), () -> "$SYS says " + sysHealth);

        UnstoredMqtt311Publish mqtt3 = UnstoredMqtt311Publish.send(server, disk, "mqtt3", acknowledged);

        disk.free();
        Eventually.await(() -> healthStatus() == 200, "/health is UP again without a restart");
        Eventually.await(() -> sysHealth.contains("ok"), () -> "$SYS says " + sysHealth);
        publishAcknowledged(publisher, "after", 20, "capture resumed", acknowledged);
        acknowledged.add(mqtt3.reconnectAndAssertAcknowledged());
        mqtt3.close();
        publisher.disconnect();
        subscriber.disconnect();

        server.close();
        server = null;
        Set<String> captured = new HashSet<>();
        for (Object[] row : DuckDb.query("SELECT data FROM read_parquet('" + disk.path().resolve("parquet") + "/*.parquet')")) {
            captured.add(id((byte[]) row[0]));
        }
        for (String id : acknowledged) {
            assertTrue(captured.contains(id), "acknowledged message " + id + " is in Parquet");
        }
    }
}
