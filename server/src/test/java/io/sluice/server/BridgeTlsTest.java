package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.sluice.bridges.Bridge;
import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.BridgeState;
import io.sluice.bridges.testing.HiveClient;
import io.sluice.broker.testing.Pki;
import io.sluice.server.config.ConfigLoader;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bridge over mutual TLS (tls+mqtt-tcp:// with ssl { }) to a Sluice that demands client certificates. */
class BridgeTlsTest {
    @TempDir
    Path dir;
    private SluiceServer cloud;
    private SluiceServer edge;

    @AfterEach
    void stop() {
        if (edge != null) {
            edge.close();
        }
        if (cloud != null) {
            cloud.close();
        }
    }

    @Test
    void aBridgeConnectsWithItsCertificateAndRefusesAServerItCannotVerify() throws Exception {
        Pki pki = Pki.create(dir, "Test CA");
        Pki.Issued server = pki.server("cloud");
        Pki.Issued client = pki.client("edge-1");
        cloud = start("cloud", """
                listeners.ssl {
                  bind = "127.0.0.1:0"
                  keyfile = "%s"
                  certfile = "%s"
                  cacertfile = "%s"
                  verify_peer = true
                  fail_if_no_peer_cert = true
                }
                """.formatted(server.keyFile(), server.certFile(), pki.caFile()));
        int port = cloud.address("ssl").getPort();
        Pki other = Pki.create(Files.createDirectories(dir.resolve("other")), "Another CA");
        edge = start("edge", """
                bridges.mqtt.secure {
                  server = "tls+mqtt-tcp://localhost:%d"
                  proto_ver = 5
                  forwards = [ { local_topic = "data/#", remote_topic = "" } ]
                  ssl { cacertfile = "%s", certfile = "%s", keyfile = "%s" }
                }
                bridges.mqtt.doubtful {
                  server = "tls+mqtt-tcp://localhost:%d"
                  backoff_max = 1s
                  forwards = [ { local_topic = "other/#", remote_topic = "" } ]
                  ssl { cacertfile = "%s", certfile = "%s", keyfile = "%s" }
                }
                bridges.mqtt.cache.mounted_file_path = "%s"
                """.formatted(port, pki.caFile(), client.certFile(), client.keyFile(),
                port, other.caFile(), client.certFile(), client.keyFile(), dir.resolve("edge-bridges")));
        try (HiveClient inCloud = HiveClient.connect(cloud.address("tcp").getPort()).subscribe("data/#", 1);
             HiveClient device = HiveClient.connect(edge.address("tcp").getPort())) {
            Eventually.await(() -> bridge("secure").state() == BridgeState.CONNECTED,
                    () -> "the bridge connects over TLS: " + edge.bridges().statuses());
            device.publish("data/t", "42", 1);
            Eventually.await(() -> inCloud.topics().contains("data/t"), "the message crosses over TLS");
            assertEquals(List.of("42"), inCloud.payloads());
            Bridge doubtful = bridge("doubtful");
            Eventually.await(() -> doubtful.counters().get(BridgeCounter.CONNECT_FAILURES) >= 1,
                    "a server certificate from an unknown CA is refused");
            assertEquals(0, doubtful.counters().get(BridgeCounter.CONNECTS));
            String error = doubtful.status().lastError();
            assertTrue(error != null && (error.contains("certif") || error.contains("PKIX")), error);
        }
    }

    private Bridge bridge(String name) {
        return edge.bridges().all().stream().filter(b -> b.name().equals(name)).findFirst().orElseThrow();
    }

    private SluiceServer start(String name, String extra) throws IOException {
        Path file = dir.resolve(name + ".conf");
        Files.writeString(file, """
                listeners.tcp.bind = "127.0.0.1:0"
                persistence.dir = "%s"
                parquet.dir = "%s"
                %s
                """.formatted(dir.resolve(name + "-state"), dir.resolve(name + "-parquet"), extra));
        return SluiceServer.start(ConfigLoader.load(file));
    }
}
