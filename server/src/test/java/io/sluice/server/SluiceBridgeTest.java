package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.BridgeState;
import io.sluice.bridges.BridgeStatus;
import io.sluice.bridges.testing.HiveClient;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.testing.ServerProcess;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two Sluices: A (in this JVM) bridges to B (its own process) both ways on the same topics, over
 * MQTT 5 (No Local) and MQTT 3.1.1 (the bridge bit, which B honours). Every message reaches each
 * side exactly once and nothing loops; what B sends is published on A through A's ACL; the bridge's
 * state shows in A's {@code $SYS} and {@code /metrics}.
 */
class SluiceBridgeTest {
    @TempDir
    Path dir;
    private SluiceServer a;

    @AfterEach
    void stop() {
        if (a != null) {
            a.close();
        }
    }

    @ParameterizedTest(name = "proto_ver {0}")
    @ValueSource(ints = {4, 5})
    void twoSluicesBridgedBothWaysDeliverEachMessageOnceAndNeverLoop(int protoVer) throws Exception {
        Files.createDirectories(dir.resolve("b"));
        try (ServerProcess b = ServerProcess.start(dir.resolve("b"), "")) {
            a = startA(b.port(), protoVer);
            try (HiveClient onA = HiveClient.connect(a.address("tcp").getPort()).subscribe("shared/#", 1);
                 HiveClient onB = HiveClient.connect(b.port()).subscribe("shared/#", 1);
                 HiveClient sys = HiveClient.connect(a.address("tcp").getPort()).subscribe("$SYS/broker/bridges/#", 0)) {
                Eventually.await(() -> status().state() == BridgeState.CONNECTED, () -> "A's bridge connects: "
                        + status());
                onA.publish("shared/from-a", "1", 1);
                Eventually.await(() -> onB.topics().contains("shared/from-a"), "A's message reaches B");
                onB.publish("shared/from-b", "2", 1);
                Eventually.await(() -> onA.topics().contains("shared/from-b"), "B's message reaches A");
                onB.publish("shared/secret", "3", 1);
                Eventually.await(() -> a.bridges().all().get(0).counters().get(BridgeCounter.RECEIVED_DENIED) == 1,
                        "A's ACL refuses what the bridge may not publish");
                // Markers sent after everything else: any echo or loop would have arrived before them.
                onA.publish("shared/marker-a", "4", 1);
                onB.publish("shared/marker-b", "5", 1);
                Eventually.await(() -> onA.topics().containsAll(List.of("shared/marker-a", "shared/marker-b"))
                        && onB.topics().containsAll(List.of("shared/marker-a", "shared/marker-b")), "the markers");
                List<String> expected = List.of("shared/from-a", "shared/from-b", "shared/marker-a", "shared/marker-b");
                assertEquals(expected, onA.topics().stream().sorted().toList(), "A gets each message once");
                assertEquals(List.of("shared/from-a", "shared/from-b", "shared/marker-a", "shared/marker-b",
                        "shared/secret"), onB.topics().stream().sorted().toList(), "B gets each message once");

                Eventually.await(() -> sysValue(sys, "$SYS/broker/bridges/peer/state").equals("connected"),
                        () -> "$SYS shows the bridge's state: " + sys.topics());
                String metrics = metrics();
                assertTrue(metrics.contains("sluice_bridge_acknowledged_total{bridge=\"peer\",type=\"mqtt\"} 2.0"),
                        metrics);
                assertTrue(metrics.contains("sluice_bridge_state{bridge=\"peer\",state=\"connected\",type=\"mqtt\"} 1.0"),
                        metrics);
            }
        }
    }

    private SluiceServer startA(int remotePort, int protoVer) throws IOException {
        Path acl = dir.resolve("acl.conf");
        Files.writeString(acl, """
                rules = [
                  { permit = deny, clientid = "bridge:peer", action = publish, topics = ["shared/secret"] }
                ]
                """);
        Path file = dir.resolve("a.conf");
        Files.writeString(file, """
                listeners.tcp.bind = "127.0.0.1:0"
                http_server.port = 0
                system.sys_interval = 100ms
                persistence.dir = "%s"
                parquet.dir = "%s"
                auth { acl_file = "%s", no_match = allow }
                bridges.mqtt.peer {
                  server = "mqtt-tcp://127.0.0.1:%d"
                  proto_ver = %d
                  backoff_max = 1s
                  forwards = [ { local_topic = "shared/#", remote_topic = "" } ]
                  subscription = [ { remote_topic = "shared/#", local_topic = "", qos = 1 } ]
                }
                bridges.mqtt.cache.mounted_file_path = "%s"
                """.formatted(dir.resolve("a-state"), dir.resolve("a-parquet"), acl, remotePort, protoVer,
                dir.resolve("a-bridges")));
        return SluiceServer.start(ConfigLoader.load(file));
    }

    private BridgeStatus status() {
        return a.bridges().statuses().get(0);
    }

    private static String sysValue(HiveClient client, String topic) {
        String value = "";
        for (var publish : client.received()) {
            if (publish.getTopic().toString().equals(topic)) {
                value = new String(publish.getPayloadAsBytes(), java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        return value;
    }

    private String metrics() throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + a.httpAddress().getPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.body();
    }
}
