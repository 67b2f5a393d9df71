package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertThrows;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import io.sluice.bridges.Bridge;
import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.testing.HiveClient;
import io.sluice.bridges.testing.MosquittoProcess;
import io.sluice.exchange.Exchange;
import io.sluice.parquet.DuckDb;
import io.sluice.parquet.StoreCounter;
import io.sluice.server.testing.FaultyServer;
import io.sluice.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A message the bridge receives from its remote (Mosquitto) while the local side cannot store it
 * (the write-ahead log of the exchange that captures it fails its writes, as on a full disk) is
 * not acknowledged to the remote: the bridge reconnects, the remote (which kept the bridge's
 * session) sends it again, and once the log writes again it is stored. Before, the remote got its
 * PUBACK at once and the message was never captured.
 */
class BridgeLocalRefusalTest {
    @TempDir
    Path dir;
    private final FaultyServer broker = new FaultyServer();

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void aMessageFromTheRemoteThatCannotBeStoredIsNotAcknowledgedAndComesAgain() throws Exception {
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir);
             HiveClient cloud = HiveClient.connect(mosquitto.port())) {
            Path file = dir.resolve("sluice.conf");
            Files.writeString(file, """
                    listeners.tcp.bind = "127.0.0.1:0"
                    persistence.enabled = false
                    parquet.dir = "%s"
                    exchange_client.cap {
                      exchange_url = "tcp://127.0.0.1:*"
                      exchange {
                        name = "cap"
                        topic = "cloud/#"
                        durability = wal
                        flush_interval = 100ms
                        parquet { file_roll_interval = 100ms }
                      }
                    }
                    bridges.mqtt.cloud {
                      server = "%s"
                      proto_ver = 5
                      clientid = "edge-bridge"
                      clean_start = false
                      conn_properties.session_expiry_interval = 3600
                      backoff_max = 1s
                      subscription = [ { remote_topic = "cloud/#", local_topic = "", qos = 1 } ]
                    }
                    bridges.mqtt.cache.mounted_file_path = "%s"
                    """.formatted(dir.resolve("parquet"), mosquitto.url(), dir.resolve("bridges")));
            SluiceServer server = broker.start(file);
            Exchange exchange = server.exchanges().get("cap");
            Bridge bridge = server.bridges().all().get(0);
            long[] lastProbe = {0};
            Eventually.await(() -> {
                if (System.nanoTime() - lastProbe[0] > 100_000_000L) { // every 100 ms until the bridge has subscribed
                    cloud.publish("cloud/probe", "probe", 1);
                    lastProbe[0] = System.nanoTime();
                }
                return exchange.counter(StoreCounter.RECORDS_WRITTEN) > 0;
            }, "a message from the remote is captured");

            // A local publish finds the log failing: the exchange refuses every new message until it writes again.
            broker.faults().failWrites = true;
            Mqtt5BlockingClient local = MqttClient.builder().useMqttVersion5().identifier("local")
                    .serverHost("127.0.0.1").serverPort(server.address("tcp").getPort()).buildBlocking();
            local.connect();
            assertThrows(Mqtt5PubAckException.class, () -> local.publishWith().topic("cloud/local")
                    .qos(MqttQos.AT_LEAST_ONCE).payload("local".getBytes(StandardCharsets.UTF_8)).send());
            cloud.publish("cloud/x", "refused", 1);
            Eventually.await(() -> bridge.counters().get(BridgeCounter.RECEIVED_NOT_STORED) > 0,
                    "the bridge counts the message the local side could not store");
            broker.faults().failWrites = false;

            cloud.publish("cloud/x", "later", 1);
            long[] lastLook = {0};
            Eventually.await(() -> {
                if (System.nanoTime() - lastLook[0] < 200_000_000L) {
                    return false; // a look at the Parquet files every 200 ms
                }
                lastLook[0] = System.nanoTime();
                return captured().containsAll(Set.of("refused", "later"));
            }, () -> "the refused message came again and was captured; captured: " + captured() + ", not stored: "
                    + bridge.counters().get(BridgeCounter.RECEIVED_NOT_STORED));
            local.disconnect();
        }
    }

    /** The payloads in the exchange's published Parquet files. */
    private Set<String> captured() {
        Set<String> captured = new HashSet<>();
        if (!Files.isDirectory(dir.resolve("parquet"))) {
            return captured;
        }
        try {
            for (Object[] row : DuckDb.query("SELECT data FROM read_parquet('" + dir.resolve("parquet") + "/*.parquet')")) {
                captured.add(new String((byte[]) row[0], StandardCharsets.UTF_8));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the Parquet files of " + dir.resolve("parquet") + " failed", e);
        }
        return captured;
    }
}
