package io.sluice.server;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import io.sluice.testing.Eventually;
import io.sluice.server.testing.ServerProcess;
import io.sluice.parquet.DuckDb;
import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;
import io.sluice.query.client.Record;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Crash-safe capture through the real server process: a publisher sends QoS 1 messages without
 * pause, the server is killed with SIGKILL while they flow, and after a restart every message
 * whose PUBACK arrived is in the query results exactly once (and in the Parquet files, once the
 * restarted server stopped).
 */
class CaptureCrashTest {
    private static final Logger LOG = LoggerFactory.getLogger(CaptureCrashTest.class);
    private static final Pattern QUERY_ENDPOINT = Pattern.compile("exchange crash: query channel listening on (tcp://\\S+)");
    private static final int IN_FLIGHT = 100;

    @TempDir
    Path dir;

    private static String config(String flush) {
        return config(flush, "wal");
    }

    /** The default parquet settings (so the file stays open for 10 minutes), batches every 100 ms. */
    private static String config(String flush, String durability) {
        return "storage.flush = " + flush + "\n"
                + "exchange_client.mq1 {\n"
                + "  exchange_url = \"tcp://127.0.0.1:*\"\n"
                + "  exchange {\n"
                + "    name = \"crash\"\n"
                + "    topic = \"crash/#\"\n"
                + "    durability = " + durability + "\n"
                + "    flush_interval = 100ms\n"
                + "    ringbus { cap = 500 }\n"
                + "  }\n"
                + "}\n";
    }

    @ParameterizedTest(name = "storage.flush = {0}")
    @ValueSource(strings = {"interval", "always"})
    void everyAcknowledgedPublishIsQueryableExactlyOnceAfterKill9(String flush) throws Exception {
        Set<Integer> acknowledged = ConcurrentHashMap.newKeySet();
        try (ServerProcess first = ServerProcess.start(dir, config(flush))) {
            Mqtt5AsyncClient publisher = MqttClient.builder().useMqttVersion5().identifier("publisher")
                    .serverHost("127.0.0.1").serverPort(first.port()).buildAsync();
            publisher.connect().get(10, TimeUnit.SECONDS);
            AtomicBoolean stop = new AtomicBoolean();
            Semaphore window = new Semaphore(IN_FLIGHT);
            Thread publishing = new Thread(() -> publishUntilStopped(publisher, window, acknowledged, stop), "publisher");
            publishing.start();
            Eventually.await(() -> acknowledged.size() >= 3000, "3000 publishes acknowledged (" + acknowledged.size() + ")");
            Eventually.await(() -> openFiles().size() == 1, "a file open, receiving row groups");
            assertEquals(List.of(), publishedFiles(), "no file published yet: the kill comes in the middle of the open file");
            first.kill();
            stop.set(true);
            publishing.join(10_000);
            Eventually.await(() -> window.availablePermits() == IN_FLIGHT, "every publish acknowledged or failed");
        }
        try (ServerProcess second = ServerProcess.start(dir, config(flush))) {
            Map<String, Integer> queried = query(endpoint(second));
            LOG.info("flush {}: {} publishes acknowledged before the kill, {} records queried after the restart; {}", flush,
                    acknowledged.size(), queried.size(), second.output().stream()
                            .filter(l -> l.contains("not in Parquet yet")).findFirst().orElse("nothing replayed from the log"));
            assertEveryAcknowledgedOnce(acknowledged, queried, "query results");
            assertEquals(143, second.terminate());
        }
        Map<String, Integer> stored = new HashMap<>();
        for (Object[] row : DuckDb.query("SELECT data FROM read_parquet('" + dir.resolve("parquet") + "/sluice_crash-*.parquet')")) {
            stored.merge(new String((byte[]) row[0], StandardCharsets.UTF_8), 1, Integer::sum);
        }
        assertEveryAcknowledgedOnce(acknowledged, stored, "Parquet files");
    }

    /**
     * Without a write-ahead log a crash loses only what was not written to a row group yet: the
     * row groups of the open file are published from its journal at the restart, exactly once.
     */
    @org.junit.jupiter.api.Test
    void durabilityNoneKeepsTheOpenFilesRowGroupsAfterKill9() throws Exception {
        int messages = 2000;
        Set<Integer> acknowledged = ConcurrentHashMap.newKeySet();
        try (ServerProcess first = ServerProcess.start(dir, config("interval", "none"))) {
            Mqtt5AsyncClient publisher = MqttClient.builder().useMqttVersion5().identifier("publisher")
                    .serverHost("127.0.0.1").serverPort(first.port()).buildAsync();
            publisher.connect().get(10, TimeUnit.SECONDS);
            for (int i = 0; i < messages; i++) {
                int message = i;
                publisher.publishWith().topic("crash/" + (i % 4)).qos(MqttQos.AT_LEAST_ONCE)
                        .payload(("m-" + i).getBytes(StandardCharsets.UTF_8)).send()
                        .thenRun(() -> acknowledged.add(message));
            }
            Eventually.await(() -> acknowledged.size() == messages, "every publish acknowledged");
            Path journal = dir.resolve("parquet").resolve(".sluice_crash_0.parquet.journal");
            long[] last = {-1, System.nanoTime()};
            // The writer journals each 100 ms batch as it comes; once the journal stopped growing for 2 s, all are in it.
            Eventually.await(() -> {
                long size = size(journal);
                if (size != last[0]) {
                    last[0] = size;
                    last[1] = System.nanoTime();
                }
                return size > 0 && System.nanoTime() - last[1] > TimeUnit.SECONDS.toNanos(2);
            }, "the open file's journal settled");
            assertEquals(List.of(), publishedFiles(), "the file is still open");
            first.kill();
        }
        try (ServerProcess second = ServerProcess.start(dir, config("interval", "none"))) {
            Map<String, Integer> queried = query(endpoint(second));
            assertEveryAcknowledgedOnce(acknowledged, queried, "query results");
            assertTrue(second.output().stream().anyMatch(l -> l.contains("a crash left in open file")), "recovered from the journal");
            assertEquals(143, second.terminate());
        }
        Map<String, Integer> stored = new HashMap<>();
        for (Object[] row : DuckDb.query("SELECT data FROM read_parquet('" + dir.resolve("parquet") + "/sluice_crash-*.parquet')")) {
            stored.merge(new String((byte[]) row[0], StandardCharsets.UTF_8), 1, Integer::sum);
        }
        assertEveryAcknowledgedOnce(acknowledged, stored, "Parquet files");
    }

    private static long size(Path file) {
        try {
            return java.nio.file.Files.exists(file) ? java.nio.file.Files.size(file) : 0;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private List<Path> openFiles() {
        return parquetDir(name -> name.endsWith(".parquet.tmp"));
    }

    private List<Path> publishedFiles() {
        return parquetDir(name -> name.endsWith(".parquet"));
    }

    private List<Path> parquetDir(java.util.function.Predicate<String> names) {
        Path parquet = dir.resolve("parquet");
        if (!java.nio.file.Files.isDirectory(parquet)) {
            return List.of();
        }
        try (var files = java.nio.file.Files.list(parquet)) {
            return files.filter(p -> names.test(p.getFileName().toString())).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Publishes m-0, m-1, ... with at most {@value #IN_FLIGHT} unacknowledged (the window), recording each PUBACK. */
    private static void publishUntilStopped(Mqtt5AsyncClient publisher, Semaphore window, Set<Integer> acknowledged,
                                            AtomicBoolean stop) {
        for (int i = 0; !stop.get(); i++) {
            try {
                if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    i--;
                    continue;
                }
            } catch (InterruptedException e) {
                return;
            }
            int message = i;
            publisher.publishWith().topic("crash/" + (i % 4)).qos(MqttQos.AT_LEAST_ONCE)
                    .payload(("m-" + i).getBytes(StandardCharsets.UTF_8)).send()
                    .whenComplete((result, error) -> {
                        if (error == null) {
                            acknowledged.add(message);
                        }
                        window.release();
                    });
        }
    }

    private static String endpoint(ServerProcess server) {
        for (String line : server.output()) {
            Matcher m = QUERY_ENDPOINT.matcher(line);
            if (m.find()) {
                return m.group(1);
            }
        }
        return fail("the restarted server did not log its query endpoint: " + server.output());
    }

    /** Every payload of the exchange's records, with how often it appears; offsets strictly increase. */
    private static Map<String, Integer> query(String url) throws Exception {
        Map<String, Integer> payloads = new HashMap<>();
        try (ExchangeConsumer consumer = ExchangeConsumer.builder().url(url).timeout(Duration.ofSeconds(10)).connect();
             Query query = consumer.query("async-0-" + Long.MAX_VALUE / 2 + "-ts,offset,topic,data")) {
            long previousOffset = -1;
            for (Record record : query.records()) {
                assertTrue(record.offset() > previousOffset, "offsets increase: " + record.offset() + " after " + previousOffset);
                previousOffset = record.offset();
                payloads.merge(new String(record.data(), StandardCharsets.UTF_8), 1, Integer::sum);
            }
        }
        return payloads;
    }

    private static void assertEveryAcknowledgedOnce(Set<Integer> acknowledged, Map<String, Integer> found, String where) {
        List<String> duplicated = found.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
        assertEquals(List.of(), duplicated, "messages twice in the " + where);
        List<Integer> missing = acknowledged.stream().filter(i -> !found.containsKey("m-" + i)).sorted().toList();
        assertEquals(List.of(), missing, missing.size() + " of " + acknowledged.size() + " acknowledged messages missing from the "
                + where + " (" + found.size() + " found)");
    }
}
