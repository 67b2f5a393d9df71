package io.sluice.server;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5DisconnectException;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import io.sluice.testing.Eventually;
import io.sluice.server.testing.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server as users start it: a separate JVM running {@link SluiceMain}. */
class SluiceMainTest {
    @TempDir
    Path dir;

    @Test
    void aBadConfigurationExitsWithOneLineNamingTheKey() throws Exception {
        try (ServerProcess server = ServerProcess.launch(dir, "mqtt { max_inflight_window = -1 }")) {
            assertEquals(2, server.awaitExit());
            Eventually.await(() -> !server.output().isEmpty(), "the error line is read");
            List<String> lines = server.output();
            assertEquals(1, lines.size(), String.valueOf(lines));
            assertTrue(lines.get(0).contains("mqtt.max_inflight_window"), lines.get(0));
        }
    }

    @Test
    void aBadExchangeFoundOnlyWhileStartingAlsoExitsWithOneLine() throws Exception {
        String exchange = "exchange_client.a { exchange { name = x, topic = \"x/#\", streamType = 99 } }";
        try (ServerProcess server = ServerProcess.launch(dir, exchange)) {
            assertEquals(2, server.awaitExit());
            Eventually.await(() -> server.output().stream().anyMatch(l -> l.contains("exchange_client.a.exchange.streamType")),
                    "the error line is read");
        }
    }

    @Test
    void sigtermStopsTheServerGracefullyAndMqtt5ClientsAreTold() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir, "log.level = info\n")) {
            CompletableFuture<Throwable> disconnected = new CompletableFuture<>();
            Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier("watcher")
                    .serverHost("127.0.0.1").serverPort(server.port())
                    .addDisconnectedListener(ctx -> disconnected.complete(ctx.getCause())).buildBlocking();
            client.connect();

            server.terminate();

            Throwable cause = disconnected.get(10, TimeUnit.SECONDS);
            assertTrue(cause instanceof Mqtt5DisconnectException, String.valueOf(cause));
            assertEquals(Mqtt5DisconnectReasonCode.SERVER_SHUTTING_DOWN,
                    ((Mqtt5DisconnectException) cause).getMqttMessage().getReasonCode());
        }
    }
}
