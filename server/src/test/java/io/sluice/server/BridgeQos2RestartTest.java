package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.sluice.bridges.testing.HiveClient;
import io.sluice.bridges.testing.TcpGate;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.testing.ServerProcess;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A forwards QoS 2 messages to a second Sluice, B, through a relay that loses every PUBREL: each
 * exchange stops after PUBREC. B routes a QoS 2 message when its PUBLISH arrives and holds the
 * packet identifier until PUBREL, so the subscriber on B already has them. A is then restarted; its
 * bridge resends the stored messages with the packet identifiers they had (they follow the backlog
 * offsets), B recognises them as the same messages and does not route them again, the exchanges
 * complete, and B's subscriber has every message exactly once.
 */
class BridgeQos2RestartTest {
    private static final int EACH = 5;

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
    void aQos2ExchangeCutAfterPubrecIsDeliveredOnceByASecondSluiceAcrossARestart(int protoVer) throws Exception {
        Files.createDirectories(dir.resolve("b"));
        try (ServerProcess b = ServerProcess.start(dir.resolve("b"), "");
             TcpGate network = TcpGate.to(b.port(), true);
             HiveClient onB = HiveClient.connect(b.port(), "sub", true).subscribe("edge/#", 2)) {
            Path config = writeA(network.port(), protoVer);
            List<String> expected = new ArrayList<>();
            a = SluiceServer.start(ConfigLoader.load(config));
            try (HiveClient onA = HiveClient.connect(a.address("tcp").getPort())) {
                awaitBridge();
                publish(onA, "before", expected);
                Eventually.await(() -> onB.payloads().size() == EACH && a.bridges().statuses().get(0).backlog() == 0,
                        "the first messages arrive and their exchanges complete");
                network.losePubRel(true);
                publish(onA, "cut", expected);
                Eventually.await(() -> network.pubRelsLost() >= EACH, () -> "every cut exchange got its PUBREC: "
                        + network.pubRelsLost());
                assertEquals(EACH, a.bridges().statuses().get(0).backlog(), "no PUBCOMP: the cut messages stay stored");
            }
            a.close();
            network.losePubRel(false);
            a = SluiceServer.start(ConfigLoader.load(config));
            try (HiveClient onA = HiveClient.connect(a.address("tcp").getPort())) {
                awaitBridge();
                publish(onA, "after", expected);
                onA.publish("data/t", "marker", 2);
                expected.add("marker");
                Eventually.await(() -> onB.payloads().contains("marker")
                        && a.bridges().statuses().get(0).backlog() == 0, () -> "everything arrives: "
                        + onB.payloads() + "; " + a.bridges().statuses());
            }
            assertEquals(expected, onB.payloads(), "each message exactly once, in order");
        }
    }

    private void awaitBridge() {
        Eventually.await(() -> a.bridges().statuses().get(0).state().isConnected(), () -> "A's bridge connects: "
                + a.bridges().statuses());
    }

    private static void publish(HiveClient client, String phase, List<String> expected) {
        for (int i = 0; i < EACH; i++) {
            client.publish("data/t", phase + "-" + i, 2);
            expected.add(phase + "-" + i);
        }
    }

    private Path writeA(int remotePort, int protoVer) throws IOException {
        Path file = dir.resolve("a.conf");
        Files.writeString(file, """
                listeners.tcp.bind = "127.0.0.1:0"
                persistence.dir = "%s"
                parquet.dir = "%s"
                bridges.mqtt.q2 {
                  server = "mqtt-tcp://127.0.0.1:%d"
                  proto_ver = %d
                  clientid = "a-q2"
                  clean_start = false
                  conn_properties.session_expiry_interval = 3600
                  backoff_max = 1s
                  forwards = [ { local_topic = "data/#", remote_topic = "", prefix = "edge/" } ]
                }
                bridges.mqtt.cache.mounted_file_path = "%s"
                """.formatted(dir.resolve("a-state"), dir.resolve("a-parquet"), remotePort, protoVer,
                dir.resolve("a-bridges")));
        return file;
    }
}
