package io.sluice.testing.kafka;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A real Apache Kafka broker (the version of {@code kafka-clients} on this module's class path) in
 * a child JVM: one node that is both broker and KRaft controller, formatted with {@code StorageTool
 * format --standalone} in a folder the caller owns, on two ephemeral ports, plus one for each
 * further {@link Listener} (SASL, TLS). For tests and benchmark drivers that need Kafka as a peer.
 *
 * <pre>{@code
 * try (KafkaBroker kafka = KafkaBroker.start(tempDir)) {
 *     producerProps.put("bootstrap.servers", kafka.bootstrapServers());
 *     ...
 *     kafka.stop();    // an outage: SIGTERM, the broker shuts down cleanly
 *     kafka.restart(); // the same ports and data again
 * }
 * }</pre>
 *
 * <p>The broker's class path ({@code kafka_2.13} and its dependencies, resolved by Maven when this
 * module is built) is read from the resources {@code broker.classpath} and {@code
 * broker-runtime.classpath} beside this class, so none of
 * the broker's jars (Scala, Jackson, ...) reach the caller's class path. The broker runs lean: 192 MB
 * heap, serial GC, C1 only and an 8 MiB log-cleaner buffer (the default 128 MiB does not fit that
 * heap); it starts in about three seconds. Its output goes to {@code <dir>/broker.log}.
 */
public final class KafkaBroker implements AutoCloseable {
    /** How long start-up and shutdown may take on a loaded two-core machine. */
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final List<String> CLASSPATH_RESOURCES = List.of("broker.classpath", "broker-runtime.classpath");

    private final Path dir;
    private final int port;
    private final int controllerPort;
    private final List<String> extraProperties;
    private final Map<Listener, Integer> listeners;
    private final List<String> scramCredentials;
    private final String classPath;
    private Process process;

    /**
     * A listener beside PLAINTEXT, for clients that authenticate or encrypt: its name (upper case,
     * such as {@code SASL}), its security protocol ({@code SASL_PLAINTEXT}, {@code SSL}, {@code
     * SASL_SSL}) and the broker's settings for it, each a {@code server.properties} line such as
     * {@code listener.name.sasl.sasl.enabled.mechanisms=PLAIN}. The broker and its controller keep
     * talking PLAINTEXT among themselves.
     */
    public record Listener(String name, String securityProtocol, List<String> properties) {
        public Listener {
            if (!name.matches("[A-Z][A-Z0-9_]*") || name.equals("PLAINTEXT") || name.equals("CONTROLLER")) {
                throw new IllegalArgumentException("listener name '" + name + "': upper case, and neither PLAINTEXT"
                        + " nor CONTROLLER");
            }
            properties = List.copyOf(properties);
        }
    }

    private KafkaBroker(Path dir, int port, int controllerPort, List<String> extraProperties,
                        Map<Listener, Integer> listeners, List<String> scramCredentials, String classPath) {
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.extraProperties = extraProperties;
        this.listeners = listeners;
        this.scramCredentials = scramCredentials;
        this.classPath = classPath;
    }

    /** Formats a new broker in {@code dir} (created if missing), starts it and waits until it serves requests. */
    public static KafkaBroker start(Path dir) throws IOException {
        return start(dir, List.of());
    }

    /**
     * As {@link #start(Path)}, with further {@code server.properties} lines (for example
     * {@code "num.partitions=3"}); a line setting a key already set overrides it.
     */
    public static KafkaBroker start(Path dir, List<String> extraProperties) throws IOException {
        return start(dir, extraProperties, List.of(), List.of());
    }

    /**
     * As {@link #start(Path, List)}, with further listeners, each on an ephemeral port of its own
     * ({@link #bootstrapServers(String)}), and SCRAM users created when the storage is formatted,
     * each as {@code StorageTool format --add-scram} takes it: {@code SCRAM-SHA-256=[name=alice,password=secret]}.
     */
    public static KafkaBroker start(Path dir, List<String> extraProperties, List<Listener> listeners,
                                    List<String> scramCredentials) throws IOException {
        Files.createDirectories(dir);
        Map<Listener, Integer> ports = new LinkedHashMap<>();
        for (Listener listener : listeners) {
            ports.put(listener, freePort());
        }
        KafkaBroker broker = new KafkaBroker(dir.toAbsolutePath(), freePort(), freePort(), List.copyOf(extraProperties),
                ports, List.copyOf(scramCredentials), brokerClassPath());
        broker.writeConfiguration();
        broker.format();
        broker.launch();
        return broker;
    }

    /** {@code host:port} of the broker's PLAINTEXT listener, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** {@code host:port} of the further listener {@code name}. */
    public String bootstrapServers(String name) {
        for (Map.Entry<Listener, Integer> listener : listeners.entrySet()) {
            if (listener.getKey().name().equals(name)) {
                return "127.0.0.1:" + listener.getValue();
            }
        }
        throw new IllegalArgumentException("the Kafka broker in " + dir + " has no listener " + name);
    }

    /** The folder holding the broker's configuration, data and log. */
    public Path directory() {
        return dir;
    }

    /** Whether the broker process is running. */
    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the broker with SIGTERM and waits for its clean shutdown; its data stays. */
    public void stop() {
        if (!isRunning()) {
            return;
        }
        process.destroy();
        awaitExit();
    }

    /** Ends the broker with SIGKILL, as a crash would. */
    public void kill() {
        if (!isRunning()) {
            return;
        }
        process.destroyForcibly();
        awaitExit();
    }

    /** Starts the stopped broker again on the same ports, with the same data, and waits until it is ready. */
    public void restart() {
        if (isRunning()) {
            throw new IllegalStateException("the Kafka broker in " + dir + " is still running");
        }
        launch();
    }

    @Override
    public void close() {
        stop();
    }

    private void awaitExit() {
        try {
            if (!process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }

    /** The class path Maven resolved for the broker when this module was built. */
    private static String brokerClassPath() throws IOException {
        Set<String> entries = new LinkedHashSet<>();
        for (String resource : CLASSPATH_RESOURCES) {
            try (InputStream in = KafkaBroker.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("resource " + resource + " is missing beside "
                            + KafkaBroker.class.getName() + ": build the testing-kafka module with Maven, which writes it");
                }
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
                entries.addAll(List.of(text.split(java.io.File.pathSeparator)));
            }
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    private void writeConfiguration() throws IOException {
        StringBuilder bound = new StringBuilder("PLAINTEXT://127.0.0.1:" + port);
        StringBuilder protocols = new StringBuilder("CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        for (Map.Entry<Listener, Integer> listener : listeners.entrySet()) {
            bound.append(',').append(listener.getKey().name()).append("://127.0.0.1:").append(listener.getValue());
            protocols.append(',').append(listener.getKey().name()).append(':')
                    .append(listener.getKey().securityProtocol());
        }
        List<String> lines = new ArrayList<>(List.of(
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.bootstrap.servers=127.0.0.1:" + controllerPort,
                "listeners=" + bound + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=" + bound,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=" + protocols,
                "log.dirs=" + dir.resolve("data"),
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=true",
                // The default 128 MiB is allocated on the heap at start-up and does not fit -Xmx192m.
                "log.cleaner.dedupe.buffer.size=8388608"));
        listeners.keySet().forEach(listener -> lines.addAll(listener.properties()));
        lines.addAll(extraProperties);
        Files.write(dir.resolve("server.properties"), lines, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("log4j2.properties"), String.join("\n",
                "status = error",
                "appender.out.type = Console",
                "appender.out.name = out",
                "appender.out.layout.type = PatternLayout",
                "appender.out.layout.pattern = [%d] %p %m (%c)%n",
                "rootLogger.level = warn",
                "rootLogger.appenderRef.out.ref = out",
                "logger.started.name = kafka.server.KafkaRaftServer",
                "logger.started.level = info",
                ""), StandardCharsets.UTF_8);
    }

    private List<String> java(String mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms64m", "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties"),
                "-cp", classPath, mainClass));
        command.addAll(List.of(args));
        return command;
    }

    private void format() throws IOException {
        List<String> args = new ArrayList<>(List.of("format", "-t", UUID.randomUUID().toString(),
                "-c", dir.resolve("server.properties").toString(), "--standalone"));
        for (String credential : scramCredentials) {
            args.add("--add-scram");
            args.add(credential);
        }
        Process formatting = new ProcessBuilder(java("kafka.tools.StorageTool", args.toArray(String[]::new)))
                .redirectErrorStream(true).start();
        String output = readAll(formatting.getInputStream());
        try {
            if (!formatting.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS) || formatting.exitValue() != 0) {
                formatting.destroyForcibly();
                throw new IllegalStateException("formatting the Kafka broker's storage in " + dir + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while formatting the Kafka broker in " + dir, e);
        }
    }

    private static String readAll(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    private void launch() {
        List<String> output = new CopyOnWriteArrayList<>();
        try {
            process = new ProcessBuilder(java("kafka.Kafka", dir.resolve("server.properties").toString()))
                    .redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("starting the Kafka broker in " + dir + " failed", e);
        }
        Thread drain = new Thread(() -> copyOutput(process.getInputStream(), output), "kafka-broker-output");
        drain.setDaemon(true);
        drain.start();
        awaitReady(output);
    }

    /** Keeps the last lines in memory (for failure messages) and every line in {@code broker.log}. */
    private void copyOutput(InputStream in, List<String> recent) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
             Writer log = Files.newBufferedWriter(dir.resolve("broker.log"), StandardCharsets.UTF_8,
                     StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            String line;
            while ((line = reader.readLine()) != null) {
                recent.add(line);
                if (recent.size() > 50) {
                    recent.remove(0);
                }
                log.write(line);
                log.write('\n');
                log.flush();
            }
        } catch (IOException e) {
            recent.add("(reading the broker's output failed: " + e + ")");
        }
    }

    /** Ready means the broker answers DescribeCluster with itself as a node. */
    private void awaitReady(List<String> output) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 1000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000);
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 20);
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 100);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        try (Admin admin = Admin.create(props)) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the Kafka broker in " + dir + " exited with status "
                            + process.exitValue() + " before it was ready: " + output);
                }
                try {
                    if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    // not yet
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the Kafka broker in " + dir, e);
                }
                if (System.nanoTime() - deadline > 0) {
                    process.destroyForcibly();
                    throw new IllegalStateException("the Kafka broker in " + dir + " was not ready within "
                            + DEADLINE + ": " + output);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "KafkaBroker[" + bootstrapServers() + ", " + dir + (isRunning() ? ", running" : ", stopped") + "]";
    }
}
