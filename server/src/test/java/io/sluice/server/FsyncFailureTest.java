package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import io.sluice.exchange.ExchangeCounter;
import io.sluice.server.testing.FaultyServer;
import io.sluice.testing.Eventually;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An fsync of an exchange's write-ahead log fails (injected through the segment channel seam): the
 * log goes offline for good, as designed, since after a failed fsync the page cache cannot be
 * trusted; the broker keeps forwarding, QoS 1 publishers get PUBACK 0x97 rather than a false
 * success, and {@code /health} says which log and why until the broker is restarted.
 */
class FsyncFailureTest {
    @TempDir
    Path dir;
    private final FaultyServer broker = new FaultyServer();

    @AfterEach
    void stop() {
        broker.close();
    }

    private static void publish(Mqtt5BlockingClient client, String payload) {
        client.publishWith().topic("data/x").qos(MqttQos.AT_LEAST_ONCE).payload(payload.getBytes(StandardCharsets.UTF_8)).send();
    }

    @Test
    void aFailedFsyncTakesTheLogOfflineWhileTheBrokerKeepsForwarding() throws Exception {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, """
                listeners.tcp.bind = "127.0.0.1:0"
                http_server.port = 0
                persistence.enabled = false
                parquet.dir = "%s"
                storage.flush = always
                exchange_client.synced {
                  exchange_url = "tcp://127.0.0.1:*"
                  exchange { name = "synced", topic = "data/#", durability = wal, flush_interval = 100ms }
                }
                """.formatted(dir.resolve("parquet")));
        SluiceServer server = broker.start(file);
        Set<String> forwarded = ConcurrentHashMap.newKeySet();
        Mqtt5BlockingClient subscriber = broker.client("subscriber");
        subscriber.toAsync().subscribeWith().topicFilter("data/#").qos(MqttQos.AT_LEAST_ONCE)
                .callback(p -> forwarded.add(new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8)))
                .send().get(10, TimeUnit.SECONDS);
        Mqtt5BlockingClient publisher = broker.client("publisher");
        publish(publisher, "synced-0");
        assertEquals(200, broker.get("/health").statusCode());

        broker.faults().failForce = true;
        Mqtt5PubAckException refused = assertThrows(Mqtt5PubAckException.class, () -> publish(publisher, "unsynced-0"));
        assertEquals(Mqtt5PubAckReasonCode.QUOTA_EXCEEDED, refused.getMqttMessage().getReasonCode());
        assertTrue(broker.faults().forcesFailed.get() >= 1);
        broker.faults().failForce = false;

        HttpResponse<String> down = broker.get("/health");
        assertEquals(503, down.statusCode());
        assertTrue(down.body().contains("exchange \\u0027synced\\u0027: write-ahead log") && down.body().contains("offline until restarted")
                && down.body().contains("Input/output error"), down.body());
        assertEquals(1, server.exchanges().get("synced").counter(ExchangeCounter.WAL_FAILURES));
        HttpResponse<String> metrics = broker.get("/metrics");
        assertTrue(metrics.body().contains("sluice_exchange_healthy{exchange=\"synced\"} 0.0"), metrics.body());

        refused = assertThrows(Mqtt5PubAckException.class, () -> publish(publisher, "unsynced-1"),
                "the log stays offline although fsyncs would work again: its page cache cannot be trusted");
        assertEquals(Mqtt5PubAckReasonCode.QUOTA_EXCEEDED, refused.getMqttMessage().getReasonCode());
        publisher.publishWith().topic("data/x").qos(MqttQos.AT_MOST_ONCE).payload("qos0".getBytes(StandardCharsets.UTF_8)).send();
        Eventually.await(() -> forwarded.containsAll(Set.of("synced-0", "unsynced-0", "unsynced-1", "qos0")),
                () -> "forwarding goes on; the subscriber got " + forwarded);
        assertEquals(503, broker.get("/health").statusCode(), "still offline: only a restart opens the log again");
        publisher.disconnect();
        subscriber.disconnect();
    }
}
