package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.sluice.bridges.testing.HiveClient;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.testing.ServerProcess;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real Sluices: A (in this JVM, node "a") and B (its own process, node "b") each have an
 * MQTT 5 bridge to the other forwarding the same topics, and B forwards them on to C (its own
 * process, node "c"). Every message reaches each broker exactly once: what comes back to the node
 * it passed through is dropped and counted (its {@code sluice-path} holds that node's id), and the
 * chain A → B → C still delivers A's messages to C.
 */
class BridgeLoopTest {
    @TempDir
    Path dir;
    private SluiceServer a;

    @AfterEach
    void stop() {
        if (a != null) {
            a.close();
        }
    }

    @Test
    void twoSluicesBridgedToEachOtherForwardEachMessageOnceAndAChainStillForwards() throws Exception {
        Files.createDirectories(dir.resolve("b"));
        Files.createDirectories(dir.resolve("c"));
        int bPort = freePort();
        try (ServerProcess c = ServerProcess.start(dir.resolve("c"), "bridges.node_id = \"c\"\n")) {
            a = startA(bPort);
            int aPort = a.address("tcp").getPort();
            try (ServerProcess b = ServerProcess.start(dir.resolve("b"), """
                    listeners.tcp.bind = "127.0.0.1:%d"
                    bridges.node_id = "b"
                    bridges.mqtt.to-a {
                      server = "mqtt-tcp://127.0.0.1:%d"
                      proto_ver = 5
                      backoff_max = 1s
                      forwards = [ { local_topic = "shared/#", remote_topic = "" } ]
                    }
                    bridges.mqtt.to-c {
                      server = "mqtt-tcp://127.0.0.1:%d"
                      proto_ver = 5
                      backoff_max = 1s
                      forwards = [ { local_topic = "shared/#", remote_topic = "" } ]
                    }
                    bridges.mqtt.cache.mounted_file_path = "%s"
                    """.formatted(bPort, aPort, c.port(), dir.resolve("b").resolve("bridges")));
                 HiveClient onA = HiveClient.connect(aPort).subscribe("shared/#", 1);
                 HiveClient onB = HiveClient.connect(b.port()).subscribe("shared/#", 1);
                 HiveClient onC = HiveClient.connect(c.port()).subscribe("shared/#", 1)) {
                Eventually.await(() -> a.bridges().statuses().get(0).state().isConnected(), "A's bridge connects");
                Eventually.await(() -> b.output().stream().filter(l -> l.contains("connected to")).count() >= 2,
                        () -> "B's bridges connect: " + b.output());
                onA.publish("shared/from-a", "1", 1);
                onB.publish("shared/from-b", "2", 1);
                Eventually.await(() -> a.broker().metrics().get(BrokerCounter.PUBLISH_DROPPED_LOOP) == 1,
                        () -> "A's message came back from B once and A dropped it: "
                                + a.broker().metrics().get(BrokerCounter.PUBLISH_DROPPED_LOOP));
                // Markers after everything else: a loop would have delivered more by the time they arrive.
                onA.publish("shared/marker-a", "3", 1);
                onB.publish("shared/marker-b", "4", 1);
                List<String> all = List.of("shared/from-a", "shared/from-b", "shared/marker-a", "shared/marker-b");
                for (HiveClient on : List.of(onA, onB, onC)) {
                    Eventually.await(() -> on.topics().containsAll(all), () -> "every message arrives: " + on.topics());
                }
                Eventually.await(() -> a.broker().metrics().get(BrokerCounter.PUBLISH_DROPPED_LOOP) == 2,
                        "A drops the returning marker too");
                assertEquals(all, onA.topics().stream().sorted().toList(), "A gets each message once");
                assertEquals(all, onB.topics().stream().sorted().toList(), "B gets each message once");
                assertEquals(all, onC.topics().stream().sorted().toList(), "C, at the end of the chain, gets each once");
                assertEquals(2, a.broker().metrics().get(BrokerCounter.PUBLISH_DROPPED_LOOP),
                        "nothing else came round");
            }
        }
    }

    private SluiceServer startA(int bPort) throws IOException {
        Path file = dir.resolve("a.conf");
        Files.writeString(file, """
                listeners.tcp.bind = "127.0.0.1:0"
                persistence.dir = "%s"
                parquet.dir = "%s"
                bridges.node_id = "a"
                bridges.mqtt.to-b {
                  server = "mqtt-tcp://127.0.0.1:%d"
                  proto_ver = 5
                  backoff_max = 1s
                  forwards = [ { local_topic = "shared/#", remote_topic = "" } ]
                }
                bridges.mqtt.cache.mounted_file_path = "%s"
                """.formatted(dir.resolve("a-state"), dir.resolve("a-parquet"), bPort, dir.resolve("a-bridges")));
        return SluiceServer.start(ConfigLoader.load(file));
    }

    /** A port nothing listens on now, for B, whose address A's bridge needs before B starts. */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
