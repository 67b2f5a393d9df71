package io.sluice.examples.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.sluice.testing.kafka.KafkaBroker;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Bridge benchmarks for docs/benchmarks.md, each against a real peer that this driver starts:
 * <ul>
 *  <li>{@code mqtt}: Sluice (started with {@code bin/sluice}) bridges to Mosquitto through a relay
 *      this driver holds shut: {@code --count} QoS 1 messages are published to Sluice while the remote
 *      is unreachable (the store rate: each is acknowledged once durable in the backlog), optionally
 *      Sluice is killed with SIGKILL and restarted ({@code --crash true}), then the relay opens and
 *      the drain rate is how fast all of them reach a subscriber on Mosquitto;</li>
 *  <li>{@code kafka}: Sluice bridges to a real Kafka broker ({@code testing-kafka}): the live
 *      throughput (publish to Sluice until a Kafka consumer has read them all), then the drain rate
 *      after a broker outage of {@code --count} messages.</li>
 * </ul>
 * Also prints the bridge's own "backlog drained" log line. Run from the repository root after
 * {@code mvn -q -DskipTests package}:
 * <pre>
 * java -cp "examples/bench/target/bench-0.1.0-SNAPSHOT.jar:examples/bench/target/lib/*" \
 *      io.sluice.examples.bench.BridgeBench mqtt --count 100000 --payload 64 --proto 5 --crash true
 * </pre>
 */
public final class BridgeBench {
    private static final Pattern DRAINED = Pattern.compile("backlog drained: .*");

    private final Map<String, String> options;
    private final Path work;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final List<Process> processes = new ArrayList<>();

    private BridgeBench(Map<String, String> options) throws IOException {
        this.options = options;
        this.work = Files.createTempDirectory("bridge-bench");
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: BridgeBench mqtt|kafka [--count N] [--payload BYTES] [--proto 4|5] "
                    + "[--flush none|interval|always] [--crash true] [--inflight N] [--mosquitto PATH] "
                    + "[--compression none|zstd|...] [--linger MS] [--sluice bin/sluice]");
            System.exit(64);
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        BridgeBench bench = new BridgeBench(options);
        try {
            switch (args[0]) {
                case "mqtt" -> bench.mqtt();
                case "kafka" -> bench.kafka();
                default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
            }
        } finally {
            bench.close();
        }
        System.exit(0);
    }

    private String get(String key, String fallback) {
        return options.getOrDefault(key, fallback);
    }

    private int integer(String key, int fallback) {
        return Integer.parseInt(get(key, Integer.toString(fallback)));
    }

    private void mqtt() throws Exception {
        int count = integer("count", 100_000);
        int payload = integer("payload", 64);
        int mosquittoPort = freePort();
        Path conf = work.resolve("mosquitto.conf");
        Files.writeString(conf, String.join("\n", "listener " + mosquittoPort + " 127.0.0.1", "allow_anonymous true",
                "persistence false", "set_tcp_nodelay true", "max_queued_messages 0", "log_type error", ""));
        start(new ProcessBuilder(get("mosquitto", "/usr/sbin/mosquitto"), "-c", conf.toString()), work.resolve("mosquitto.log"));
        awaitPort(mosquittoPort);
        try (Relay relay = new Relay(mosquittoPort)) {
            String config = """
                    bridges.mqtt.cloud {
                      server = "mqtt-tcp://127.0.0.1:%d"
                      proto_ver = %s
                      backoff_max = 2s
                      forwards = [ { local_topic = "data/#", remote_topic = "", prefix = "edge/" } ]
                    }
                    bridges.mqtt.cache { mounted_file_path = "%s", flush = %s, disk_cache_size = 0 }
                    """.formatted(relay.port(), get("proto", "5"), work.resolve("bridges"), get("flush", "interval"));
            int sluicePort = startSluice(config);
            BenchClient subscriber = BenchClient.connect(group, NioSocketChannel.class, "127.0.0.1", mosquittoPort, "cloud");
            subscriber.subscribe("edge/#", 1);
            long storeNanos = publish(sluicePort, count, payload);
            System.out.printf(Locale.ROOT, "store: %d QoS 1 messages of %d B acknowledged in %.2f s: %.0f msg/s "
                    + "(remote unreachable, flush = %s)%n", count, payload, storeNanos / 1e9,
                    count / (storeNanos / 1e9), get("flush", "interval"));
            if (Boolean.parseBoolean(get("crash", "false"))) {
                Process sluice = processes.remove(processes.size() - 1);
                sluice.destroyForcibly().waitFor();
                long restart = System.nanoTime();
                startSluice(config);
                System.out.printf(Locale.ROOT, "kill -9 and restart: listening again after %d ms%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restart));
            }
            relay.open();
            long start = System.nanoTime();
            awaitCount(() -> subscriber.received.get(), count, "messages at the remote's subscriber");
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(Locale.ROOT, "drain: %d messages reached the remote's subscriber in %.2f s after the"
                    + " remote came back: %.0f msg/s (proto_ver %s; %d received, duplicates included)%n", count,
                    seconds, count / seconds, get("proto", "5"), subscriber.received.get());
            printDrainedLine();
        }
    }

    private void kafka() throws Exception {
        int count = integer("count", 100_000);
        int payload = integer("payload", 64);
        try (KafkaBroker kafka = KafkaBroker.start(work.resolve("kafka"))) {
            String config = """
                    bridges.kafka.lake {
                      bootstrap_hosts = "%s"
                      forwards = [ { local_topic = "data/#", kafka_topic = "telemetry", key = "topic" } ]
                      compression = %s
                      linger = %sms
                      backoff_max = 2s
                    }
                    bridges.kafka.cache { mounted_file_path = "%s", flush = %s, disk_cache_size = 0 }
                    """.formatted(kafka.bootstrapServers(), get("compression", "none"), get("linger", "5"),
                    work.resolve("bridges"), get("flush", "interval"));
            int sluicePort = startSluice(config);
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(kafka)) {
                long start = System.nanoTime();
                publish(sluicePort, count, payload);
                awaitCount(() -> poll(consumer), count, "records in Kafka");
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf(Locale.ROOT, "live: %d QoS 1 messages of %d B published to Sluice and read from"
                        + " Kafka in %.2f s: %.0f msg/s (compression %s)%n", count, payload, seconds, count / seconds,
                        get("compression", "none"));
                kafka.stop();
                long storeNanos = publish(sluicePort, count, payload);
                System.out.printf(Locale.ROOT, "store: %d messages acknowledged in %.2f s while Kafka was down%n",
                        count, storeNanos / 1e9);
                kafka.restart();
                long drainStart = System.nanoTime();
                awaitCount(() -> poll(consumer), 2L * count, "records in Kafka after the outage");
                seconds = (System.nanoTime() - drainStart) / 1e9;
                System.out.printf(Locale.ROOT, "drain: %d messages in Kafka %.2f s after it came back: %.0f msg/s%n",
                        count, seconds, count / seconds);
                printDrainedLine();
            }
        }
    }

    private final Set<String> seenLines = ConcurrentHashMap.newKeySet();
    private long consumed;

    private long poll(KafkaConsumer<byte[], byte[]> consumer) {
        consumed += consumer.poll(Duration.ofMillis(100)).count();
        return consumed;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaBroker kafka) {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.METADATA_MAX_AGE_CONFIG, 500), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer.assign(List.of(new TopicPartition("telemetry", 0)));
        return consumer;
    }

    /** Publishes {@code count} QoS 1 messages to Sluice, at most {@code --inflight} unacknowledged; returns the nanoseconds. */
    private long publish(int port, int count, int payload) throws Exception {
        BenchClient publisher = BenchClient.connect(group, NioSocketChannel.class, "127.0.0.1", port,
                "device-" + System.nanoTime());
        publisher.publishes("data/1", 1, new byte[payload]);
        int inflight = integer("inflight", 1000);
        long start = System.nanoTime();
        int sent = 0;
        while (publisher.acknowledged.get() < count) {
            long room = inflight - (sent - publisher.acknowledged.get());
            if (room > 0 && sent < count) {
                int batch = (int) Math.min(Math.min(room, 64), count - sent);
                publisher.send(batch);
                sent += batch;
            } else {
                Thread.onSpinWait();
            }
        }
        long nanos = System.nanoTime() - start;
        publisher.close();
        return nanos;
    }

    private interface Count {
        long get() throws Exception;
    }

    /** Waits for {@code target}, failing when nothing moves for 60 s. */
    private static void awaitCount(Count count, long target, String what) throws Exception {
        long last = -1;
        long lastMove = System.nanoTime();
        while (true) {
            long now = count.get();
            if (now >= target) {
                return;
            }
            if (now != last) {
                last = now;
                lastMove = System.nanoTime();
            } else if (System.nanoTime() - lastMove > TimeUnit.SECONDS.toNanos(60)) {
                throw new IllegalStateException("stuck at " + now + " of " + target + " " + what);
            }
            Thread.sleep(1);
        }
    }

    /** Starts Sluice with {@code bridges} and returns its MQTT port. */
    private int startSluice(String bridges) throws Exception {
        int port = freePort();
        Path conf = work.resolve("sluice.conf");
        Files.writeString(conf, """
                listeners.tcp.bind = "127.0.0.1:%d"
                persistence.dir = "%s"
                parquet.dir = "%s"
                %s
                """.formatted(port, work.resolve("state"), work.resolve("parquet"), bridges));
        start(new ProcessBuilder(get("sluice", "bin/sluice"), "-c", conf.toString()), work.resolve("sluice.log"));
        awaitPort(port);
        return port;
    }

    private void start(ProcessBuilder builder, Path log) throws IOException {
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        processes.add(builder.start());
    }

    private void printDrainedLine() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            for (String line : Files.readAllLines(work.resolve("sluice.log"), StandardCharsets.UTF_8)) {
                Matcher m = DRAINED.matcher(line);
                if (m.find() && seenLines.add(line)) {
                    System.out.println("sluice: " + m.group());
                    return;
                }
            }
            Thread.sleep(100);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }

    private static void awaitPort(int port) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 100);
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("nothing listens on " + port);
    }

    private void close() throws Exception {
        for (Process process : processes) {
            process.destroy();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        group.shutdownGracefully().syncUninterruptibly();
        try (var files = Files.walk(work)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** A TCP relay to the remote, shut until {@link #open()}: the outage the drain recovers from. */
    private static final class Relay implements AutoCloseable {
        private final ServerSocket server = new ServerSocket();
        private final int target;
        private volatile boolean open;

        Relay(int target) throws IOException {
            this.target = target;
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            Thread acceptor = new Thread(this::accept, "relay");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        void open() {
            open = true;
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    if (!open) {
                        client.close();
                        continue;
                    }
                    Socket remote = new Socket("127.0.0.1", target);
                    client.setTcpNoDelay(true);
                    remote.setTcpNoDelay(true);
                    pump(client, remote);
                    pump(remote, client);
                } catch (IOException e) {
                    // closed
                }
            }
        }

        private static void pump(Socket from, Socket to) {
            Thread thread = new Thread(() -> {
                byte[] buffer = new byte[65536];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        out.write(buffer, 0, n);
                    }
                } catch (IOException e) {
                    // one side closed
                }
            }, "relay-pump");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
