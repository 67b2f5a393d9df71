package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.bridges.testing.HiveClient;
import io.sluice.bridges.testing.MosquittoProcess;
import io.sluice.bridges.testing.TcpGate;
import io.sluice.server.testing.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store-and-forward promise end to end: with the remote (Mosquitto) unreachable, QoS 1 messages
 * published to Sluice are acknowledged once stored in the bridge's backlog ({@code flush = always});
 * Sluice is then killed with SIGKILL and started again; when the remote is reachable again every
 * message arrives, in order per topic. Duplicates are allowed (at least once) and reported.
 *
 * <p>The count is {@code -Dsluice.bridge.crash.messages} (default 20,000, enough to fill many
 * segments' worth of batches and several drain windows while keeping the suite fast; the 100,000 run
 * is in docs/benchmarks.md).
 */
class BridgeCrashTest {
    private static final int COUNT = Integer.getInteger("sluice.bridge.crash.messages", 20_000);
    private static final int TOPICS = 4;

    @TempDir
    Path dir;

    @Test
    void aBacklogSurvivesKillMinus9AndIsDeliveredInOrderWhenTheRemoteReturns() throws Exception {
        try (MosquittoProcess mosquitto = MosquittoProcess.start(dir, "max_queued_messages 0");
             TcpGate network = TcpGate.to(mosquitto.port(), false);
             HiveClient cloud = HiveClient.connect(mosquitto.port()).subscribe("edge/#", 1)) {
            Path home = dir.resolve("sluice");
            Files.createDirectories(home);
            String config = """
                    bridges.mqtt.cloud {
                      server = "%s"
                      proto_ver = 5
                      backoff_max = 1s
                      forwards = [ { local_topic = "data/#", remote_topic = "", prefix = "edge/" } ]
                    }
                    bridges.mqtt.cache { mounted_file_path = "%s", flush = always }
                    """.formatted(network.url(), home.resolve("bridges"));
            long published;
            try (ServerProcess sluice = ServerProcess.start(home, config)) {
                published = publish(sluice.port());
                sluice.kill();
            }
            try (ServerProcess again = ServerProcess.start(home, config)) {
                assertTrue(again.output().stream().anyMatch(l -> l.contains(COUNT + " messages")),
                        "the backlog is back after the crash: " + again.output());
                network.open();
                awaitAll(cloud, again);
                Report report = check(cloud);
                System.out.printf("bridge crash test: %d published in %d ms, %d arrived, %d duplicates%n", COUNT,
                        published, report.received, report.duplicates);
            }
        }
    }

    /** Publishes COUNT QoS 1 messages, at most 1,000 unacknowledged; returns the milliseconds it took. */
    private static long publish(int port) throws Exception {
        Mqtt5AsyncClient publisher = Mqtt5Client.builder().identifier("device").serverHost("127.0.0.1")
                .serverPort(port).buildAsync();
        publisher.connect().join();
        long start = System.nanoTime();
        Semaphore window = new Semaphore(1000);
        CompletableFuture<?>[] acks = new CompletableFuture<?>[COUNT];
        for (int i = 0; i < COUNT; i++) {
            window.acquire();
            acks[i] = publisher.publishWith().topic("data/" + (i % TOPICS)).qos(MqttQos.AT_LEAST_ONCE)
                    .payload(Integer.toString(i).getBytes(StandardCharsets.US_ASCII)).send()
                    .whenComplete((result, error) -> window.release());
        }
        CompletableFuture.allOf(acks).get(120, TimeUnit.SECONDS);
        for (CompletableFuture<?> ack : acks) {
            ack.join(); // every PUBACK came back: the message is in the backlog
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /** Waits while messages keep arriving; fails only when nothing new came for 30 s. */
    private static void awaitAll(HiveClient cloud, ServerProcess sluice) throws InterruptedException {
        int last = -1;
        long lastProgress = System.nanoTime();
        while (distinct(cloud) < COUNT) {
            int now = cloud.received().size();
            if (now != last) {
                last = now;
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(30)) {
                fail("only " + distinct(cloud) + " of " + COUNT + " arrived; sluice: " + sluice.output());
            }
            Thread.sleep(10);
        }
    }

    private static int distinct(HiveClient cloud) {
        return new HashSet<>(cloud.payloads()).size();
    }

    private record Report(int received, int duplicates) {
    }

    /** Every value arrived; per topic, first arrivals are in publishing order. */
    private static Report check(HiveClient cloud) {
        List<Mqtt5Publish> received = cloud.received();
        Map<String, Integer> highest = new HashMap<>();
        Set<Integer> seen = new HashSet<>();
        int duplicates = 0;
        for (Mqtt5Publish publish : received) {
            int value = Integer.parseInt(new String(publish.getPayloadAsBytes(), StandardCharsets.US_ASCII));
            String topic = publish.getTopic().toString();
            assertEquals("edge/data/" + (value % TOPICS), topic);
            if (!seen.add(value)) {
                duplicates++;
                continue;
            }
            int before = highest.getOrDefault(topic, -1);
            assertTrue(value > before, topic + ": " + value + " arrived after " + before);
            highest.put(topic, value);
        }
        assertEquals(COUNT, seen.size(), "every message arrived");
        return new Report(received.size(), duplicates);
    }
}
