package io.sluice.bridges.mqtt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.sluice.bridges.BridgeState;
import io.sluice.bridges.testing.BridgeHarness;
import io.sluice.bridges.testing.HiveClient;
import io.sluice.bridges.testing.MosquittoProcess;
import io.sluice.bridges.testing.MqttSettings;
import io.sluice.bridges.testing.TcpGate;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * QoS 2 forwards to a real Mosquitto cut between PUBREC and PUBCOMP (the relay loses every PUBREL),
 * then the bridge is closed and opened again on the same backlog, as after a restart that forgot
 * its packet identifiers. The remote kept the session (no clean start): the messages are sent again
 * with the identifiers they had, the remote recognises them, and every message reaches the
 * subscriber exactly once, in order.
 */
class Qos2RestartTest {
    private static final int EACH = 5;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "proto_ver {0}")
    @ValueSource(ints = {4, 5})
    void aQos2ExchangeCutAfterPubrecCompletesExactlyOnceAfterARestart(int protoVer) throws Exception {
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir);
             TcpGate network = TcpGate.to(mosquitto.port(), true);
             HiveClient cloud = HiveClient.connect(mosquitto.port()).subscribe("edge/#", 2)) {
            var settings = MqttSettings.bridge("q2", network.url()).protoVer(protoVer).clientId("q2-bridge")
                    .cleanStart(false)
                    .connect(new MqttBridgeSettings.ConnectProperties(3600, 65535, 0, 0, 1, 0, List.of()))
                    .forward("data/#", "", "edge/", "").build();
            List<String> expected = new ArrayList<>();
            try (BridgeHarness first = BridgeHarness.mqtt(settings, dir.resolve("cache")).start()) {
                Eventually.await(() -> first.bridge().state() == BridgeState.CONNECTED, "the bridge connects");
                publish(first, "before", expected);
                Eventually.await(() -> cloud.received().size() == EACH && first.bridge().status().backlog() == 0,
                        "the first messages arrive and their exchanges complete");

                network.losePubRel(true);
                publish(first, "cut", expected);
                Eventually.await(() -> network.pubRelsLost() >= EACH, () -> "PUBREC came back for every cut"
                        + " message and its PUBREL was lost: " + network.pubRelsLost());
                assertEquals(EACH, first.bridge().status().backlog(), "no PUBCOMP: the cut messages stay stored");
            }
            network.losePubRel(false);
            try (BridgeHarness second = BridgeHarness.mqtt(settings, dir.resolve("cache")).start()) {
                Eventually.await(() -> second.bridge().state().isConnected(), "the bridge connects again");
                publish(second, "after", expected);
                second.publish("device", "data/t", "marker", 2);
                expected.add("marker");
                Eventually.await(() -> cloud.payloads().contains("marker") && second.bridge().status().backlog() == 0,
                        () -> "everything arrives: " + cloud.payloads() + "; " + second.bridge().status());
            }
            assertEquals(expected, cloud.payloads(), "each message exactly once, in order");
        }
    }

    private static void publish(BridgeHarness bridge, String phase, List<String> expected) {
        for (int i = 0; i < EACH; i++) {
            bridge.publish("device", "data/t", phase + "-" + i, 2);
            expected.add(phase + "-" + i);
        }
    }
}
