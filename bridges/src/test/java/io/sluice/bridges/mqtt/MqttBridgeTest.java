package io.sluice.bridges.mqtt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.sluice.bridges.BridgeCounter;
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

/** An MQTT bridge against a real Mosquitto: both directions, renaming, loop safety. */
class MqttBridgeTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "proto_ver {0}")
    @ValueSource(ints = {4, 5})
    void forwardsAndSubscribesBothWaysWithRemapping(int protoVer) throws Exception {
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir);
             HiveClient cloud = HiveClient.connect(mosquitto.port()).subscribe("edge1/#", 2).subscribe("urgent/#", 0);
             BridgeHarness bridge = BridgeHarness.mqtt(MqttSettings.bridge("up", mosquitto.url()).protoVer(protoVer)
                     .forward("sensors/#", "", "edge1/", "")
                     .forward("alarm/+", "urgent", "", "/now")
                     .subscribe("cmd/edge1/#", "#", 2, "from-cloud/", "")
                     .build(), dir.resolve("cache")).start()) {
            Eventually.await(() -> bridge.bridge().state() == BridgeState.CONNECTED, "the bridge connects");
            // Mosquitto grants MQTT 5 clients a Receive Maximum of 20 (max_inflight_messages); 3.1.1 has none.
            assertEquals(protoVer == 5 ? 20 : MqttRemote.MQTT3_WINDOW, bridge.bridge().status().window());
            bridge.publish("device", "sensors/t1", "21.5", 1);
            bridge.publish("device", "sensors/t2", "22.0", 2);
            bridge.publish("device", "alarm/fire", "!", 0);
            Eventually.await(() -> cloud.received().size() == 3, () -> "3 forwarded messages at the remote, got "
                    + cloud.topics());
            assertEquals(List.of("edge1/sensors/t1", "edge1/sensors/t2", "urgent/now"), sorted(cloud.topics()));
            assertEquals(2, bridge.released(), "both QoS 1/2 publishers acknowledged once stored");

            cloud.publish("cmd/edge1/valve/open", "1", 1);
            cloud.publish("cmd/edge2/valve/open", "2", 1);
            Eventually.await(() -> !bridge.local().messages().isEmpty(), "the command arrives locally");
            assertEquals(List.of("from-cloud/valve/open"), bridge.local().topics());
            assertEquals("bridge:up", bridge.local().lastPublisher().clientId());
            assertEquals(0, bridge.bridge().counters().get(BridgeCounter.DISCONNECTS));
        }
    }

    @ParameterizedTest(name = "proto_ver {0}")
    @ValueSource(ints = {4, 5})
    void aTopicBridgedBothWaysDoesNotComeBack(int protoVer) throws Exception {
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir);
             HiveClient cloud = HiveClient.connect(mosquitto.port()).subscribe("shared/#", 1);
             BridgeHarness bridge = BridgeHarness.mqtt(MqttSettings.bridge("both", mosquitto.url()).protoVer(protoVer)
                     .forward("shared/#", "", "", "")
                     .subscribe("shared/#", "", 1, "", "")
                     .build(), dir.resolve("cache")).start()) {
            Eventually.await(() -> bridge.bridge().state() == BridgeState.CONNECTED, "the bridge connects");
            bridge.publish("device", "shared/from-edge", "e", 1);
            Eventually.await(() -> cloud.topics().contains("shared/from-edge"), "the remote gets the edge's message");
            cloud.publish("shared/from-cloud", "c", 1);
            Eventually.await(() -> bridge.local().topics().contains("shared/from-cloud"),
                    "the edge gets the cloud's message");
            // The remote sends in order: had it echoed the bridge's own message, that echo would be here by now.
            assertEquals(List.of("shared/from-cloud"), bridge.local().topics(), "nothing came back to the edge");

            // What the bridge published locally is not forwarded back either (local No Local).
            bridge.publish(bridge.local().lastPublisher().clientId(), "shared/from-cloud", "c", 1);
            cloud.publish("shared/marker", "m", 1);
            Eventually.await(() -> cloud.topics().contains("shared/marker"), "marker");
            assertEquals(List.of("shared/from-edge", "shared/from-cloud", "shared/marker"), cloud.topics());
        }
    }

    @ParameterizedTest(name = "proto_ver {0}")
    @ValueSource(ints = {4, 5})
    void startsWhileTheRemoteIsUnreachableAndDrainsEverythingInOrderOnceItIsBack(int protoVer) throws Exception {
        int count = 3000;
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir, "max_queued_messages 0");
             TcpGate network = TcpGate.to(mosquitto.port(), false);
             HiveClient cloud = HiveClient.connect(mosquitto.port()).subscribe("edge/#", 1);
             BridgeHarness bridge = BridgeHarness.mqtt(MqttSettings.bridge("late", network.url())
                     .protoVer(protoVer).backoffMaxMillis(500).forward("data/#", "", "edge/", "").build(),
                     dir.resolve("cache")).start()) {
            Eventually.await(() -> bridge.bridge().counters().get(BridgeCounter.CONNECT_FAILURES) >= 2,
                    "the bridge keeps trying while the remote is unreachable");
            for (int i = 0; i < count; i++) {
                bridge.publish("device", "data/" + (i % 3), Integer.toString(i), 1);
            }
            Eventually.await(() -> bridge.released() == count, () -> "every publisher acknowledged: "
                    + bridge.released());
            assertEquals(count, bridge.bridge().status().backlog());
            assertFalse(bridge.bridge().state().isConnected());

            network.open();
            Eventually.await(() -> cloud.received().size() >= count, () -> "all " + count + " arrive, got "
                    + cloud.received().size() + "; bridge " + bridge.bridge().status());
            Eventually.await(() -> bridge.bridge().status().backlog() == 0, () -> "the backlog empties: "
                    + bridge.bridge().status());
            assertInOrderPerTopic(cloud, count);
            assertEquals(0, bridge.bridge().counters().get(BridgeCounter.DISCONNECTS), "no disconnect while draining");
            assertEquals(count, bridge.bridge().counters().get(BridgeCounter.ACKNOWLEDGED));
        }
    }

    @ParameterizedTest(name = "proto_ver {0}")
    @ValueSource(ints = {4, 5})
    void resendsWhatWasNotAcknowledgedWhenTheConnectionDropsMidDrain(int protoVer) throws Exception {
        int count = 4000;
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir, "max_queued_messages 0");
             TcpGate network = TcpGate.to(mosquitto.port(), false);
             HiveClient cloud = HiveClient.connect(mosquitto.port()).subscribe("edge/#", 1);
             BridgeHarness bridge = BridgeHarness.mqtt(MqttSettings.bridge("flaky", network.url())
                     .protoVer(protoVer).backoffMaxMillis(300).forward("data/#", "", "edge/", "").build(),
                     dir.resolve("cache")).start()) {
            for (int i = 0; i < count; i++) {
                bridge.publish("device", "data/" + (i % 3), Integer.toString(i), 1);
            }
            Eventually.await(() -> bridge.released() == count, "every publisher acknowledged");
            network.open();
            Eventually.await(() -> cloud.received().size() > count / 10, "the drain is under way");
            network.shut();
            network.open();
            Eventually.await(() -> bridge.bridge().status().backlog() == 0, () -> "the backlog empties: "
                    + bridge.bridge().status());
            Eventually.await(() -> distinct(cloud) == count, () -> "every message arrives: " + distinct(cloud));
            assertInOrderPerTopic(cloud, count);
        }
    }

    @org.junit.jupiter.api.Test
    void aMessageLargerThanTheRemotesMaximumPacketSizeIsRefusedAndTheRestFlows() throws Exception {
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir, "max_packet_size 1000");
             HiveClient cloud = HiveClient.connect(mosquitto.port()).subscribe("edge/#", 1);
             BridgeHarness bridge = BridgeHarness.mqtt(MqttSettings.bridge("small", mosquitto.url()).protoVer(5)
                     .forward("data/#", "", "edge/", "").build(), dir.resolve("cache")).start()) {
            Eventually.await(() -> bridge.bridge().state() == BridgeState.CONNECTED, "the bridge connects");
            bridge.publish("device", "data/big", "x".repeat(2000), 1);
            bridge.publish("device", "data/small", "fits", 1);
            Eventually.await(() -> cloud.topics().contains("edge/data/small"), "the small message arrives");
            Eventually.await(() -> bridge.bridge().status().backlog() == 0, "nothing is stuck in the backlog");
            assertEquals(List.of("edge/data/small"), cloud.topics());
            assertEquals(1, bridge.bridge().counters().get(BridgeCounter.TOO_LARGE));
            assertEquals(0, bridge.bridge().counters().get(BridgeCounter.DISCONNECTS));
        }
    }

    /** Each topic's values arrive in order, apart from resent ones (a value seen before may come again). */
    private static void assertInOrderPerTopic(HiveClient cloud, int count) {
        List<String> topics = cloud.topics();
        List<String> payloads = cloud.payloads();
        for (int t = 0; t < 3; t++) {
            int highest = -1;
            Set<Integer> seen = new HashSet<>();
            for (int i = 0; i < topics.size(); i++) {
                if (!topics.get(i).equals("edge/data/" + t)) {
                    continue;
                }
                int value = Integer.parseInt(payloads.get(i));
                if (seen.add(value)) {
                    assertTrue(value > highest, "topic " + t + ": " + value + " after " + highest);
                    highest = value;
                }
            }
            assertEquals(count / 3 + (t < count % 3 ? 1 : 0), seen.size(), "distinct values on topic " + t);
        }
    }

    private static long distinct(HiveClient cloud) {
        return new HashSet<>(cloud.payloads()).size();
    }

    private static List<String> sorted(List<String> topics) {
        return topics.stream().sorted().toList();
    }
}
