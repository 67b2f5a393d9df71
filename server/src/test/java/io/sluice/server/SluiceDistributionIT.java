package io.sluice.server;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.parquet.DuckDb;
import io.sluice.server.testing.ServerProcess;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The archive as users install it: {@code sluice-<version>.tar.gz} unpacked by tar into an empty
 * folder, its {@code bin/sluice} started from another working directory on the archive's own
 * {@code conf/sluice.conf}, a real MQTT client publishing through it, the archive's
 * {@code bin/exchange-consumer} reading the capture back, and a SIGTERM stop. Runs after
 * {@code package}, which builds the archive.
 */
class SluiceDistributionIT {
    private static final Pattern QUERY_CHANNEL = Pattern.compile("query channel listening on (tcp://\\S+)");

    @TempDir
    Path dir;

    @Test
    void theUnpackedArchiveRunsOnItsOwnConfigurationAndKeepsItsDataInside() throws Exception {
        Path archive = Path.of(System.getProperty("sluice.dist.archive"));
        String version = archive.getFileName().toString().replaceAll("^sluice-|\\.tar\\.gz$", "");
        Path home = unpack(archive).resolve("sluice-" + version);
        // The shipped configuration with ephemeral ports instead of 1883 and 10000; its relative
        // data paths stay as shipped and must end up inside the installation.
        Files.writeString(home.resolve("conf/sluice.conf"), "\nlisteners.tcp.bind = \"127.0.0.1:0\"\n"
                + "exchange_client.mq1.exchange_url = \"tcp://127.0.0.1:*\"\n", StandardOpenOption.APPEND);
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));

        try (ServerProcess server = ServerProcess.start(command(elsewhere, home.resolve("bin/sluice")))) {
            assertEquals("21.5", roundTrip(server.port(), "telemetry/car1", "21.5"));

            // What the systemd unit's ExecReload does; with no password, ACL or TLS files to reload
            // the server must still keep running.
            Run reload = run(new ProcessBuilder("kill", "-HUP", Long.toString(server.pid())));
            assertEquals(0, reload.status(), reload.err());
            Eventually.await(() -> server.output().stream().anyMatch(l -> l.contains("SIGHUP: reloading"))
                    || ProcessHandle.of(server.pid()).filter(ProcessHandle::isAlive).isEmpty(),
                    () -> "SIGHUP is handled: " + server.output());
            assertEquals("22.5", roundTrip(server.port(), "telemetry/car1", "22.5"), "still serving after SIGHUP");

            String endpoint = queryEndpoint(server);
            Run consumer = run(command(elsewhere, home.resolve("bin/exchange-consumer"), "--url", endpoint,
                    "--timeout", "10", "--records", "sync-0-9999999999999"));
            assertEquals(0, consumer.status(), consumer.err());
            assertTrue(consumer.out().matches("ts=\\d+ data=\"21.5\"\nts=\\d+ data=\"22.5\"\n"), consumer.out());
            assertEquals(143, server.terminate(), "a JVM stopped by SIGTERM exits with 128 + 15: " + server.output());
        }

        assertTrue(Files.isDirectory(home.resolve("data/state")), "persistence.dir \"data/state\" is in the installation");
        List<Object[]> rows = DuckDb.query("SELECT topic, data FROM read_parquet('"
                + home.resolve("data/parquet") + "/sluice_telemetry-*.parquet') ORDER BY \"offset\"");
        assertEquals(2, rows.size(), "the stop wrote the captured messages into the installation's data/parquet");
        assertEquals("telemetry/car1", rows.get(0)[0]);
        assertArrayEquals("21.5".getBytes(StandardCharsets.UTF_8), (byte[]) rows.get(0)[1]);
        assertArrayEquals("22.5".getBytes(StandardCharsets.UTF_8), (byte[]) rows.get(1)[1]);
        assertFalse(Files.exists(elsewhere.resolve("data")), "nothing is written to the caller's working directory");
    }

    @Test
    void theArchiveHoldsTheLayoutTheReadmeDescribes() throws Exception {
        Path archive = Path.of(System.getProperty("sluice.dist.archive"));
        String version = archive.getFileName().toString().replaceAll("^sluice-|\\.tar\\.gz$", "");
        Path home = unpack(archive).resolve("sluice-" + version);

        assertTrue(Files.isExecutable(home.resolve("bin/sluice")));
        assertTrue(Files.isExecutable(home.resolve("bin/exchange-consumer")));
        assertTrue(Files.isRegularFile(home.resolve("conf/sluice.conf")));
        assertTrue(Files.isRegularFile(home.resolve("conf/examples/sluice.service")));
        assertTrue(Files.isRegularFile(home.resolve("README.md")));
        try (Stream<Path> plugins = Files.list(home.resolve("plugins"))) {
            assertEquals(0, plugins.count(), "plugins/ is there and empty");
        }
        assertTrue(Files.isRegularFile(home.resolve("lib/server-" + version + ".jar")));
        assertTrue(Files.isRegularFile(home.resolve("lib/query-client-" + version + ".jar")), "for bin/exchange-consumer");

        // Every bundled jar that is not ours is named, with its licence, in THIRD-PARTY.txt.
        String thirdParty = Files.readString(home.resolve("THIRD-PARTY.txt"));
        List<String> jars;
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            jars = lib.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith("-" + version + ".jar")).toList();
        }
        assertTrue(jars.size() > 20, String.valueOf(jars));
        Matcher listed = Pattern.compile("(?m)^[\\w.-]+:([\\w.-]+):(\\S+).*\\n    licence: \\S.*<(https?://\\S+)>").matcher(thirdParty);
        int entries = 0;
        List<String> unlisted = new ArrayList<>(jars);
        while (listed.find()) {
            entries++;
            String prefix = listed.group(1) + "-" + listed.group(2);
            unlisted.removeIf(jar -> jar.equals(prefix + ".jar") || jar.startsWith(prefix + "-"));
        }
        assertEquals(List.of(), unlisted, "jars in lib/ without a licence entry:\n" + thirdParty);
        assertEquals(jars.size(), entries, "one entry per third-party jar:\n" + thirdParty);
    }

    /** Unpacks with tar, as users do, into an empty folder. */
    private Path unpack(Path archive) throws Exception {
        Path target = Files.createDirectories(dir.resolve("install"));
        Run tar = run(new ProcessBuilder("tar", "xzf", archive.toString(), "-C", target.toString()));
        assertEquals(0, tar.status(), tar.err());
        return target;
    }

    private static ProcessBuilder command(Path workingDirectory, Path script, String... args) {
        ProcessBuilder builder = new ProcessBuilder(Stream.concat(Stream.of(script.toString()), Stream.of(args)).toList())
                .directory(workingDirectory.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        return builder;
    }

    private static String queryEndpoint(ServerProcess server) {
        Eventually.await(() -> endpointIn(server.output()).isPresent(),
                () -> "the query channel listens: " + server.output());
        return endpointIn(server.output()).orElseThrow();
    }

    private static Optional<String> endpointIn(List<String> lines) {
        return lines.stream().map(QUERY_CHANNEL::matcher).filter(Matcher::find).map(m -> m.group(1)).findFirst();
    }

    /** Subscribes, publishes once at QoS 1 and returns what the subscription received. */
    private static String roundTrip(int port, String topic, String payload) throws InterruptedException {
        Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier("dist-it")
                .serverHost("127.0.0.1").serverPort(port).buildBlocking();
        client.connect();
        try (Mqtt5BlockingClient.Mqtt5Publishes publishes = client.publishes(MqttGlobalPublishFilter.ALL)) {
            client.subscribeWith().topicFilter("telemetry/#").qos(MqttQos.AT_LEAST_ONCE).send();
            client.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE)
                    .payload(payload.getBytes(StandardCharsets.UTF_8)).send();
            Optional<Mqtt5Publish> received = publishes.receive(30, TimeUnit.SECONDS);
            assertTrue(received.isPresent(), "the subscriber got the message");
            assertEquals(topic, received.get().getTopic().toString());
            return new String(received.get().getPayloadAsBytes(), StandardCharsets.UTF_8);
        } finally {
            client.disconnect();
        }
    }

    private record Run(int status, String out, String err) {
    }

    private Run run(ProcessBuilder builder) throws IOException, InterruptedException {
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process process = builder.redirectError(err.toFile()).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        process.getInputStream().transferTo(out);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "ended: " + builder.command());
        return new Run(process.exitValue(), out.toString(StandardCharsets.UTF_8), Files.readString(err));
    }
}
