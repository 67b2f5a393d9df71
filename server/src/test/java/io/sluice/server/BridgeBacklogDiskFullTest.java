package io.sluice.server;

import static io.sluice.server.testing.IdPayloads.id;
import static io.sluice.server.testing.IdPayloads.publishAcknowledged;
import static io.sluice.server.testing.IdPayloads.publishOnFullDisk;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.sluice.bridges.Bridge;
import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.testing.HiveClient;
import io.sluice.bridges.testing.MosquittoProcess;
import io.sluice.bridges.testing.TcpGate;
import io.sluice.server.config.ConfigLoader;
import io.sluice.testing.Eventually;
import io.sluice.testing.SmallDisk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk under a bridge's store-and-forward backlog while its remote (Mosquitto) is
 * unreachable: the backlog cannot grow, so a QoS 1 PUBLISH that must be forwarded is not
 * acknowledged as stored (MQTT 5 PUBACK 0x97) and counted ({@code store_failed}); once the ballast
 * is deleted the backlog takes messages again without a restart, and when the remote is
 * reachable the backlog drains to it with every acknowledged message.
 */
class BridgeBacklogDiskFullTest {

    @TempDir
    Path dir;
    @RegisterExtension
    final SmallDisk disk = SmallDisk.ofSize("4m");
    private SluiceServer server;

    @AfterEach
    void closeServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aBacklogOnAFullDiskRefusesNewMessagesAndDrainsEverythingAcknowledgedOnceSpaceIsFreed() throws Exception {
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir, "max_queued_messages 0");
             TcpGate network = TcpGate.to(mosquitto.port(), false);
             HiveClient cloud = HiveClient.connect(mosquitto.port()).subscribe("edge/#", 1)) {
            Path file = dir.resolve("sluice.conf");
            Files.writeString(file, """
                    listeners.tcp.bind = "127.0.0.1:0"
                    persistence.enabled = false
                    parquet.dir = "%s"
                    bridges.mqtt.cloud {
                      server = "%s"
                      proto_ver = 5
                      backoff_max = 1s
                      forwards = [ { local_topic = "data/#", remote_topic = "", prefix = "edge/" } ]
                    }
                    bridges.mqtt.cache { mounted_file_path = "%s", flush = always }
                    """.formatted(dir.resolve("parquet"), network.url(), disk.path().resolve("bridges")));
            server = SluiceServer.start(ConfigLoader.load(file));
            Bridge bridge = server.bridges().all().get(0);
            Mqtt5BlockingClient publisher = MqttClient.builder().useMqttVersion5().identifier("device")
                    .serverHost("127.0.0.1").serverPort(server.address("tcp").getPort()).buildBlocking();
            publisher.connect();
            Set<String> acknowledged = new HashSet<>();
            publishAcknowledged(publisher, "before", 20, "the disk has room", acknowledged);

            disk.fill();
            int refused = publishOnFullDisk(publisher, acknowledged);
            assertTrue(bridge.counters().get(BridgeCounter.STORE_FAILED) >= refused, "the refusals are counted");

            disk.free();
            publishAcknowledged(publisher, "after", 20, "the backlog takes messages again", acknowledged);
            publisher.disconnect();

            network.open();
            Eventually.await(() -> {
                Set<String> arrived = new HashSet<>();
                cloud.received().forEach(p -> arrived.add(id(p.getPayloadAsBytes())));
                return arrived.containsAll(acknowledged);
            }, () -> "every acknowledged message reached the remote; " + cloud.received().size() + " arrived, "
                    + acknowledged.size() + " acknowledged");
        }
    }
}
