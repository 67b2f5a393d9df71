package io.sluice.bridges;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

import io.sluice.bridges.testing.BridgeHarness;
import io.sluice.bridges.testing.HiveClient;
import io.sluice.bridges.testing.MosquittoProcess;
import io.sluice.bridges.testing.MqttSettings;
import io.sluice.bridges.testing.TcpGate;
import io.sluice.storage.FlushPolicy;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The backlog's bounds while the remote is unreachable, and the backlog across a restart of the bridge. */
class BacklogLimitTest {
    @TempDir
    Path dir;

    private CacheSettings cache(long maxMessages, long maxBytes, FullPolicy policy) {
        return new CacheSettings(dir.resolve("cache"), maxMessages, maxBytes, policy, FlushPolicy.INTERVAL, 1000,
                Long.MAX_VALUE);
    }

    @Test
    void aFullBacklogDropsItsOldestMessagesAndCountsThem() throws Exception {
        List<String> delivered = run(cache(100, 1 << 20, FullPolicy.DROP_OLDEST), 150, BridgeCounter.DROPPED_OLDEST);
        assertEquals(IntStream.range(50, 150).mapToObj(Integer::toString).toList(), delivered);
    }

    @Test
    void aFullBacklogRefusesNewMessagesAndCountsThem() throws Exception {
        List<String> delivered = run(cache(100, 1 << 20, FullPolicy.REFUSE_NEW), 150, BridgeCounter.REFUSED_FULL);
        assertEquals(IntStream.range(0, 100).mapToObj(Integer::toString).toList(), delivered);
    }

    @Test
    void theByteLimitBoundsTheBacklogToo() throws Exception {
        // Each stored record of this test is about 60 bytes: 100 of them fit in 6,000 bytes.
        List<String> delivered = run(cache(0, 6_000, FullPolicy.REFUSE_NEW), 150, BridgeCounter.REFUSED_FULL);
        long bytes = delivered.size();
        assertEquals(true, bytes > 50 && bytes < 150, "some messages fit, not all: " + bytes);
    }

    /** Publishes {@code count} messages while the remote is unreachable, then lets them drain; returns what arrived. */
    private List<String> run(CacheSettings cache, int count, BridgeCounter limitCounter) throws Exception {
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir, "max_queued_messages 0");
             TcpGate network = TcpGate.to(mosquitto.port(), false);
             HiveClient cloud = HiveClient.connect(mosquitto.port()).subscribe("edge/#", 1);
             BridgeHarness bridge = BridgeHarness.mqtt(MqttSettings.bridge("bounded", network.url())
                     .backoffMaxMillis(300).forward("data", "", "edge/", "").build(), cache).start()) {
            for (int i = 0; i < count; i++) {
                bridge.publish("device", "data", Integer.toString(i), 1);
            }
            Eventually.await(() -> bridge.released() == count, "every publisher acknowledged");
            long limited = bridge.bridge().counters().get(limitCounter);
            long stored = bridge.bridge().status().backlog();
            assertEquals(count, stored + limited, "every message is stored or counted: " + bridge.bridge().status());
            network.open();
            Eventually.await(() -> cloud.received().size() == stored, () -> "the stored messages arrive: "
                    + cloud.received().size() + " of " + stored);
            return cloud.payloads();
        }
    }

    @Test
    void theBacklogOutlivesTheBridgeAndIsDeliveredAfterItsRestart() throws Exception {
        CacheSettings cache = cache(0, 1 << 20, FullPolicy.DROP_OLDEST);
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir, "max_queued_messages 0");
             TcpGate network = TcpGate.to(mosquitto.port(), false);
             HiveClient cloud = HiveClient.connect(mosquitto.port()).subscribe("edge/#", 1)) {
            var settings = MqttSettings.bridge("again", network.url()).backoffMaxMillis(300)
                    .forward("data", "", "edge/", "").build();
            try (BridgeHarness first = BridgeHarness.mqtt(settings, cache).start()) {
                for (int i = 0; i < 500; i++) {
                    first.publish("device", "data", Integer.toString(i), 1);
                }
                Eventually.await(() -> first.released() == 500, "every publisher acknowledged");
            }
            network.open();
            try (BridgeHarness second = BridgeHarness.mqtt(settings, cache)) {
                assertEquals(500, second.bridge().status().backlog(), "the backlog is back");
                second.start();
                Eventually.await(() -> cloud.received().size() == 500, () -> "all arrive: " + cloud.received().size());
                Eventually.await(() -> second.bridge().status().backlog() == 0, "the backlog empties");
            }
            assertEquals(IntStream.range(0, 500).mapToObj(Integer::toString).toList(), cloud.payloads());
            try (BridgeHarness third = BridgeHarness.mqtt(settings, cache)) {
                assertEquals(0, third.bridge().status().backlog(), "what was acknowledged is not sent again");
            }
        }
    }
}
