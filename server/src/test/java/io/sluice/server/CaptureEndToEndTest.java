package io.sluice.server;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.server.config.ConfigError;
import io.sluice.server.config.ConfigLoader;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.Clients;
import io.sluice.exchange.Exchange;
import io.sluice.parquet.DuckDb;
import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;
import io.sluice.query.client.Record;
import io.sluice.ringbus.RingCounter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stream capture through the whole server: MQTT clients in, Parquet files out, read back by DuckDB. */
class CaptureEndToEndTest {
    @TempDir
    Path dir;

    private SluiceServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Path write(String config) throws IOException {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, "listeners.tcp.bind = \"127.0.0.1:0\"\n"
                + "persistence.enabled = false\n"
                + "parquet { dir = \"" + dir.resolve("parquet") + "\", compress = zstd }\n" + config);
        return file;
    }

    private SluiceServer start(String config) throws IOException {
        server = SluiceServer.start(ConfigLoader.load(write(config)));
        return server;
    }

    private Mqtt5BlockingClient client(String id) {
        InetSocketAddress tcp = server.address("tcp");
        Mqtt5BlockingClient client = com.hivemq.client.mqtt.MqttClient.builder().useMqttVersion5().identifier(id)
                .serverHost("127.0.0.1").serverPort(tcp.getPort()).buildBlocking();
        client.connect();
        return client;
    }

    private static String exchange(String id, String name, String topic, String url, String extra) {
        return "exchange_client." + id + " {\n  exchange_url = \"" + url + "\"\n  exchange {\n    name = \"" + name
                + "\"\n    topic = \"" + topic + "\"\n    streamType = 0\n    flush_interval = 100ms\n" + extra
                + "\n  }\n}\n";
    }

    private List<Object[]> captured(String name) throws Exception {
        return DuckDb.query("SELECT epoch_ms(ts), \"offset\", topic, data FROM read_parquet('" + dir.resolve("parquet")
                + "/sluice_" + name + "-*.parquet') ORDER BY \"offset\"");
    }

    @Test
    void everyMatchingPublishIsForwardedAndCapturedIntoParquetExactly() throws Exception {
        start(exchange("mq1", "telemetry", "fleet/+/speed", "tcp://127.0.0.1:*", "ringbus { cap = 64 }"));
        Mqtt5BlockingClient sub = client("dashboard");
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);
        sub.subscribeWith().topicFilter("fleet/#").send();
        Mqtt5BlockingClient pub = client("vehicle");
        int count = 500;
        for (int i = 0; i < count; i++) {
            MqttQos qos = MqttQos.fromCode(i % 3);
            pub.publishWith().topic("fleet/v" + (i % 7) + "/speed").qos(qos)
                    .payload(("{\"kmh\":" + i + "}").getBytes(StandardCharsets.UTF_8)).send();
        }
        pub.publishWith().topic("fleet/v1/position").payload("not captured".getBytes()).send();
        for (int i = 0; i <= count; i++) {
            inbox.next(); // live forwarding got everything, the uncaptured topic too
        }
        server.close();
        server = null;

        List<Object[]> rows = captured("telemetry");
        assertEquals(count, rows.size());
        long previousTs = Long.MIN_VALUE;
        long previousOffset = -1;
        for (int i = 0; i < count; i++) {
            Object[] row = rows.get(i);
            long ts = ((Number) row[0]).longValue();
            long offset = ((Number) row[1]).longValue();
            assertTrue(ts >= previousTs, "ts never decreases");
            assertTrue(offset > previousOffset, "offsets strictly increase");
            assertEquals("fleet/v" + (i % 7) + "/speed", row[2]);
            assertArrayEquals(("{\"kmh\":" + i + "}").getBytes(StandardCharsets.UTF_8), (byte[]) row[3]);
            previousTs = ts;
            previousOffset = offset;
        }
    }

    @Test
    void theQueryChannelAnswersWhileTheServerRunsFromMemoryAndFiles() throws Exception {
        start(exchange("mq1", "live", "live/#", "tcp://127.0.0.1:*", "ringbus { cap = 100 }\n    parquet { file_roll_interval = 100ms }"));
        Mqtt5BlockingClient pub = client("source");
        int count = 250; // two full batches go to files, the rest waits in the ring
        for (int i = 0; i < count; i++) {
            pub.publishWith().topic("live/" + i).qos(MqttQos.AT_LEAST_ONCE).payload(("m" + i).getBytes()).send();
        }
        Exchange live = server.exchanges().get("live");
        Eventually.await(() -> live.counter(io.sluice.parquet.StoreCounter.RECORDS_WRITTEN) >= 200, "both full batches in published files");
        try (ExchangeConsumer consumer = ExchangeConsumer.builder().url(server.queryEndpoint("live"))
                .timeout(Duration.ofSeconds(10)).connect();
             Query query = consumer.query("async-0-" + Long.MAX_VALUE / 2 + "-ts,offset,topic,data")) {
            int i = 0;
            long previousOffset = -1;
            for (Record record : query.records()) {
                assertEquals("live/" + i, record.topic());
                assertArrayEquals(("m" + i).getBytes(), record.data());
                assertTrue(record.offset() > previousOffset);
                previousOffset = record.offset();
                i++;
            }
            assertEquals(count, i, "every record once, in order, from files and memory");
        }
    }

    @Test
    void severalExchangesMatchingOneMessageEachGetACopy() throws Exception {
        start(exchange("a", "all", "plant/#", "tcp://127.0.0.1:*", "")
                + exchange("b", "temperatures", "plant/+/temp", "tcp://127.0.0.1:*", ""));
        Mqtt5BlockingClient pub = client("sensor");
        pub.publishWith().topic("plant/l1/temp").qos(MqttQos.AT_LEAST_ONCE).payload("21".getBytes()).send();
        pub.publishWith().topic("plant/l1/rpm").qos(MqttQos.AT_LEAST_ONCE).payload("900".getBytes()).send();
        server.close();
        server = null;
        assertEquals(2, captured("all").size());
        List<Object[]> temperatures = captured("temperatures");
        assertEquals(1, temperatures.size());
        assertEquals("plant/l1/temp", temperatures.get(0)[2]);
    }

    @Test
    void onlyAuthorisedPublishesAreCaptured() throws Exception {
        Path acl = dir.resolve("acl.hocon");
        Files.writeString(acl, "rules = [ { permit = deny, clientid = \"intruder\", action = publish, topics = [\"#\"] } ]");
        start("auth { acl_file = \"" + acl + "\", no_match = allow }\n"
                + exchange("a", "audit", "secure/#", "tcp://127.0.0.1:*", ""));
        client("intruder").publishWith().topic("secure/door").payload("open".getBytes()).send();
        client("guard").publishWith().topic("secure/door").qos(MqttQos.AT_LEAST_ONCE).payload("closed".getBytes())
                .send();
        server.close();
        server = null;
        List<Object[]> rows = captured("audit");
        assertEquals(1, rows.size());
        assertArrayEquals("closed".getBytes(), (byte[]) rows.get(0)[3]);
    }

    @Test
    void aSlowStreamReachesDiskThroughFileRollIntervalWhileTheServerRuns() throws Exception {
        start(exchange("a", "slow", "slow/#", "tcp://127.0.0.1:*", "ringbus { cap = 100000 }\n    parquet { file_roll_interval = 200ms }"));
        client("trickle").publishWith().topic("slow/1").qos(MqttQos.AT_LEAST_ONCE).payload("x".getBytes()).send();
        Exchange slow = server.exchanges().get("slow");
        Eventually.await(() -> slow.status().files() == 1, "a file published by flush_interval, then file_roll_interval");
        assertEquals(1, captured("slow").size());
    }

    @Test
    void captureCountersAreInSysAndMetrics() throws Exception {
        start("system.sys_interval = 100ms\nhttp_server.port = 0\n"
                + exchange("a", "counted", "c/#", "tcp://127.0.0.1:*", ""));
        Mqtt5BlockingClient watcher = client("watcher");
        Clients.Inbox<Mqtt5Publish> sys = Clients.inbox(watcher);
        watcher.subscribeWith().topicFilter("$SYS/broker/exchanges/counted/#").send();
        client("pub").publishWith().topic("c/1").qos(MqttQos.AT_LEAST_ONCE).payload("1".getBytes()).send();
        Exchange counted = server.exchanges().get("counted");
        Eventually.await(() -> counted.counter(RingCounter.RECEIVED) == 1, "captured");
        Set<String> topics = new HashSet<>();
        Eventually.await(() -> {
            Mqtt5Publish p;
            try {
                while ((p = sys.poll(50)) != null) {
                    topics.add(p.getTopic().toString());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return topics.contains("$SYS/broker/exchanges/counted/files");
        }, "$SYS carries the exchange");
        HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.httpAddress().getPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(metrics.body().lines().anyMatch(l -> l.startsWith("sluice_exchange_")
                && l.contains("exchange=\"counted\"")), metrics.body());
    }

    @Test
    void badExchangeConfigurationStopsStartUpNamingTheKey() throws Exception {
        assertEquals("exchange_client.b.exchange.name", startFails(
                exchange("a", "dup", "a/#", "tcp://127.0.0.1:*", "")
                        + exchange("b", "dup", "b/#", "tcp://127.0.0.1:*", "")).path());
        assertEquals("exchange_client.b.exchange_url", startFails(
                exchange("a", "one", "a/#", "tcp://127.0.0.1:5", "")
                        + exchange("b", "two", "b/#", "tcp://127.0.0.1:5", "")).path());
        assertEquals("exchange_client.a.exchange.ringbus.cap", startFails(
                exchange("a", "zero", "a/#", "tcp://127.0.0.1:*", "ringbus { cap = 0 }")).path());
        assertEquals("exchange_client.a.exchange.ringbus.fullOp", startFails(
                exchange("a", "op", "a/#", "tcp://127.0.0.1:*", "ringbus { fullOp = 7 }")).path());
        assertEquals("exchange_client.a.exchange.streamType", startFails(
                exchange("a", "st", "a/#", "tcp://127.0.0.1:*", "").replace("streamType = 0", "streamType = 42"))
                .path());
        Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
        assertEquals("exchange_client.a.exchange.parquet.dir", startFails(exchange("a", "d", "a/#",
                "tcp://127.0.0.1:*", "parquet { dir = \"" + file.resolve("sub") + "\" }")).path());
        assertEquals("exchange_client.a.exchange.parquet.compress", startFails(
                exchange("a", "z", "a/#", "tcp://127.0.0.1:*", "parquet { compress = brotli }")).path());
        assertEquals("exchange_client.a.exchange.topic", startFails(
                exchange("a", "t", "a/#/b", "tcp://127.0.0.1:*", "")).path());
    }

    @Test
    void aBadTopicFilterIsNamedByItsOwnKeyEvenWhenAnotherFilterAppearsInTheReason() {
        // The router's reason for "c/#/d" quotes '#', which is exchange a's whole filter.
        ConfigError error = startFails(exchange("a", "all", "#", "tcp://127.0.0.1:*", "")
                + exchange("b", "bad", "c/#/d", "tcp://127.0.0.1:*", ""));
        assertEquals("exchange_client.b.exchange.topic", error.path());
        assertEquals("exchange_client.b.exchange.topic: is not a valid MQTT topic filter: invalid topic 'c/#/d': "
                + "'#' must be the last level", error.getMessage());
        assertTrue(error.getCause() instanceof InvalidTopicException, String.valueOf(error.getCause()));
    }

    @Test
    void aPluginDirectoryThatIsNotOneStopsStartUp() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("plugins.txt"), "x");
        assertEquals("plugins.dir", startFails("plugins.dir = \"" + notADirectory + "\"\n").path());
    }

    @Test
    void aCorruptPluginJarStopsStartUpNamingTheJar() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        Files.writeString(plugins.resolve("broken.jar"), "not a zip file");
        ConfigError error = startFails("plugins.dir = \"" + plugins + "\"\n");
        assertEquals("plugins.dir", error.path());
        assertTrue(error.getMessage().contains("broken.jar"), error.getMessage());
    }

    private ConfigError startFails(String config) {
        return assertThrows(ConfigError.class, () -> {
            SluiceServer started = SluiceServer.start(ConfigLoader.load(write(config)));
            started.close();
        });
    }
}
