package io.sluice.broker.server;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5DisconnectException;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server as users start it: a separate JVM running {@link SluiceMain}. */
class SluiceMainTest {
    private static final Pattern LISTENING = Pattern.compile("accepting MQTT on .*:(\\d+) ");

    @TempDir
    Path dir;

    private Process start(String config) throws IOException {
        Path file = dir.resolve("sluice.conf");
        // Broker state and captured files go to the test's folder, never the working directory.
        Files.writeString(file, "persistence.dir = \"" + dir.resolve("state") + "\"\n"
                + "parquet.dir = \"" + dir.resolve("parquet") + "\"\n" + config);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                SluiceMain.class.getName(), "-c", file.toString())
                .redirectErrorStream(true).start();
    }

    @Test
    void aBadConfigurationExitsWithOneLineNamingTheKey() throws Exception {
        Process process = start("mqtt { max_inflight_window = -1 }");
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(2, process.exitValue());
        List<String> lines = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .lines().toList();
        assertEquals(1, lines.size(), String.valueOf(lines));
        assertTrue(lines.get(0).contains("mqtt.max_inflight_window"), lines.get(0));
    }

    @Test
    void sigtermStopsTheServerGracefullyAndMqtt5ClientsAreTold() throws Exception {
        Process process = start("listeners.tcp.bind = \"127.0.0.1:0\"\nlog.level = info\n");
        try {
            int port = awaitPort(process);
            CompletableFuture<Throwable> disconnected = new CompletableFuture<>();
            Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier("watcher")
                    .serverHost("127.0.0.1").serverPort(port)
                    .addDisconnectedListener(ctx -> disconnected.complete(ctx.getCause())).buildBlocking();
            client.connect();

            process.destroy(); // SIGTERM

            Throwable cause = disconnected.get(10, TimeUnit.SECONDS);
            assertTrue(cause instanceof Mqtt5DisconnectException, String.valueOf(cause));
            assertEquals(Mqtt5DisconnectReasonCode.SERVER_SHUTTING_DOWN,
                    ((Mqtt5DisconnectException) cause).getMqttMessage().getReasonCode());
            assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the JVM exits");
        } finally {
            process.destroyForcibly();
        }
    }

    private static int awaitPort(Process process) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> out.lines().forEach(l -> { }), "server-output");
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new IllegalStateException("the server exited before it listened");
    }
}
