package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.server.testing.FaultyServer;
import io.sluice.testing.Eventually;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker-state journal's writer thread fails on an unexpected error (an {@link InternalError}
 * thrown by a write through the segment channel seam, as a faulting mapped write raises): QoS 1
 * publishers waiting for it get PUBACK 0x97, and so does every one after, since the writer is not
 * restarted; {@code /health}, {@code $SYS/broker/state/health} and the metrics say so, with the
 * cause and the state directory, while forwarding goes on.
 */
class StateJournalHealthTest {
    @TempDir
    Path dir;
    private final FaultyServer broker = new FaultyServer();

    @AfterEach
    void stop() {
        broker.close();
    }

    private static void publishRetained(Mqtt5BlockingClient client, String payload) {
        client.publishWith().topic("state/x").qos(MqttQos.AT_LEAST_ONCE).retain(true)
                .payload(payload.getBytes(StandardCharsets.UTF_8)).send();
    }

    @Test
    void aFailedJournalWriterIsReportedCountedAndRefusesUntilARestart() throws Exception {
        Path file = dir.resolve("sluice.conf");
        Path stateDir = dir.resolve("state");
        Files.writeString(file, """
                listeners.tcp.bind = "127.0.0.1:0"
                http_server.port = 0
                system.sys_interval = 100ms
                persistence { enabled = true, dir = "%s", flush = always }
                """.formatted(stateDir));
        SluiceServer server = broker.start(file);
        AtomicReference<String> sysHealth = new AtomicReference<>();
        Mqtt5BlockingClient subscriber = broker.client("subscriber");
        subscriber.toAsync().subscribeWith().topicFilter("$SYS/broker/state/health").qos(MqttQos.AT_MOST_ONCE)
                .callback(p -> sysHealth.set(new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8)))
                .send().get(10, TimeUnit.SECONDS);
        Mqtt5BlockingClient publisher = broker.client("publisher");
        publishRetained(publisher, "stored");
        assertEquals(200, broker.get("/health").statusCode());
        Eventually.await(() -> "ok".equals(sysHealth.get()), () -> "$SYS/broker/state/health is " + sysHealth.get());

        broker.faults().writeError = new InternalError("a fault occurred in an unsafe memory access operation");
        Mqtt5PubAckException refused = assertThrows(Mqtt5PubAckException.class, () -> publishRetained(publisher, "unstored-0"));
        assertEquals(Mqtt5PubAckReasonCode.QUOTA_EXCEEDED, refused.getMqttMessage().getReasonCode());
        broker.faults().writeError = null;

        HttpResponse<String> down = broker.get("/health");
        assertEquals(503, down.statusCode());
        assertTrue(down.body().contains("broker state in ") && down.body().contains("state")
                && down.body().contains("java.lang.InternalError: a fault occurred"), down.body());
        Eventually.await(() -> sysHealth.get().contains("java.lang.InternalError"),
                () -> "$SYS/broker/state/health is " + sysHealth.get());
        assertTrue(sysHealth.get().contains(stateDir.toString()), sysHealth.get());

        refused = assertThrows(Mqtt5PubAckException.class, () -> publishRetained(publisher, "unstored-1"),
                "the writer is not restarted: writes would work again, but its bookkeeping no longer matches the shard");
        assertEquals(Mqtt5PubAckReasonCode.QUOTA_EXCEEDED, refused.getMqttMessage().getReasonCode());
        assertEquals(1, server.broker().metrics().get(BrokerCounter.STATE_JOURNAL_FAILURES));
        assertTrue(server.broker().metrics().get(BrokerCounter.STATE_WRITES_REFUSED) >= 2, "each refusal is counted");
        String metrics = broker.get("/metrics").body();
        assertTrue(metrics.contains("sluice_state_healthy 0.0") && metrics.contains("sluice_state_journal_failures_total 1.0"),
                metrics);
        assertEquals(503, broker.get("/health").statusCode(), "still refusing: only a restart resumes from the durable state");
        publisher.disconnect();
        subscriber.disconnect();
    }
}
