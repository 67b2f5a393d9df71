package io.sluice.examples.bench;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Kafka load generator for any Kafka-protocol broker, with the client's default settings (an
 * idempotent producer with {@code acks=all}), so Sluice and Apache Kafka are measured alike.
 * Scenarios:
 * <ul>
 *   <li>{@code create}: creates a topic of {@code --partitions} through the AdminClient;</li>
 *   <li>{@code produce}: one producer sends {@code --payload}-byte records as fast as the broker
 *       acknowledges them, for {@code --seconds} after {@code --warmup};</li>
 *   <li>{@code fill}: produces exactly {@code --records} records (the data a replay reads);</li>
 *   <li>{@code replay}: one consumer reads {@code --records} records from the beginning;</li>
 *   <li>{@code latency}: records go in at {@code --rate} per second, from a Kafka producer or, with
 *       {@code --mqtt-port}, from an MQTT publisher (QoS 1); a Kafka consumer at the end of the topic
 *       reports how long each took from send to poll, in this one JVM (one clock).</li>
 * </ul>
 * With {@code --pid} it reads the broker's CPU time and reports work per broker CPU-second.
 *
 * <pre>
 * java -cp 'examples/bench/target/bench-0.1.0-SNAPSHOT.jar:examples/bench/target/lib/*' \
 *     io.sluice.examples.bench.KafkaBench produce --bootstrap 127.0.0.1:9092 --topic bench --payload 1024 \
 *     --seconds 20 --warmup 10 --pid 12345
 * </pre>
 */
public final class KafkaBench {
    private final Map<String, String> options;

    private KafkaBench(Map<String, String> options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: KafkaBench create|produce|fill|replay|latency --bootstrap HOST:PORT --topic T "
                    + "[--partitions N] [--payload BYTES] [--records N] [--seconds S] [--warmup S] [--rate N] "
                    + "[--mqtt-port P] [--pid BROKER_PID] [--label TEXT]");
            System.exit(64);
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        KafkaBench bench = new KafkaBench(options);
        switch (args[0]) {
            case "create" -> bench.create();
            case "produce" -> bench.produce();
            case "fill" -> bench.fill();
            case "replay" -> bench.replay();
            case "latency" -> bench.latency();
            default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
        }
        System.exit(0);
    }

    private String get(String key, String fallback) {
        return options.getOrDefault(key, fallback);
    }

    private int integer(String key, int fallback) {
        return Integer.parseInt(get(key, Integer.toString(fallback)));
    }

    private String bootstrap() {
        return get("bootstrap", "127.0.0.1:9092");
    }

    private String topic() {
        return get("topic", "bench");
    }

    private BrokerCpu cpu() {
        return new BrokerCpu(Long.parseLong(get("pid", "0")));
    }

    private void create() throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(topic(), integer("partitions", 1), (short) 1))).all().get();
        }
    }

    private KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    /** A payload of incompressible bytes, so that no codec anywhere makes it cheaper than it is. */
    private byte[] payload(int size) {
        byte[] bytes = new byte[size];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }

    /** Sends as fast as acknowledgements allow; counts acknowledged records and bytes. */
    private void produce() throws Exception {
        int size = integer("payload", 1024);
        byte[] value = payload(size);
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            Thread sending = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    producer.send(new ProducerRecord<>(topic(), value), (metadata, error) -> {
                        if (error == null) {
                            acked.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                        }
                    });
                }
            }, "producing");
            sending.setDaemon(true);
            sending.start();
            Window window = Window.measure(integer("warmup", 10), integer("seconds", 20), acked, cpu());
            sending.interrupt();
            report("produce", window, size, "failed " + failed.get());
        }
    }

    private void fill() throws Exception {
        int size = integer("payload", 100);
        long records = Long.parseLong(get("records", "10000000"));
        byte[] value = payload(size);
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (long i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic(), value));
            }
            producer.flush();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "%s fill records=%d payload=%d seconds=%.1f records/s=%.0f%n", get("label", ""),
                records, size, seconds, records / seconds);
    }

    /** Reads the topic from the beginning until {@code --records} came. */
    private void replay() {
        long records = Long.parseLong(get("records", "10000000"));
        BrokerCpu cpu = cpu();
        long bytes = 0;
        long count = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic()).stream()
                    .map(info -> new TopicPartition(topic(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            double cpuStart = cpu.seconds();
            long start = System.nanoTime();
            while (count < records) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    count++;
                    bytes += record.serializedValueSize();
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double brokerCpu = cpu.seconds() - cpuStart;
            System.out.printf(Locale.ROOT, "%s replay records=%d seconds=%.2f records/s=%.0f MB/s=%.1f broker_cpu_s=%.2f"
                            + " records_per_broker_cpu_s=%.0f%n", get("label", ""), count, seconds, count / seconds,
                    bytes / seconds / 1e6, brokerCpu, count / brokerCpu);
        }
    }

    /** Send-to-poll latency at a fixed rate; the first --warmup seconds are not counted. */
    private void latency() throws Exception {
        int rate = integer("rate", 1000);
        int seconds = integer("seconds", 20);
        int warmup = integer("warmup", 5);
        long[] latencies = new long[rate * seconds + 16];
        int[] n = {0};
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic()).stream()
                    .map(info -> new TopicPartition(topic(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            long measureFrom = System.nanoTime() + warmup * 1_000_000_000L;
            long end = measureFrom + seconds * 1_000_000_000L;
            Thread sending = new Thread(() -> send(rate, end), "sending");
            sending.setDaemon(true);
            sending.start();
            while (System.nanoTime() < end + 2_000_000_000L && (sending.isAlive() || n[0] == 0)) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    long sent = ByteBuffer.wrap(record.value()).getLong();
                    if (sent >= measureFrom && n[0] < latencies.length) {
                        latencies[n[0]++] = System.nanoTime() - sent;
                    }
                }
            }
        }
        long[] measured = Arrays.copyOf(latencies, n[0]);
        Arrays.sort(measured);
        System.out.printf(Locale.ROOT, "%s latency via=%s rate=%d samples=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f%n",
                get("label", ""), options.containsKey("mqtt-port") ? "mqtt" : "kafka", rate, measured.length,
                percentile(measured, 0.50), percentile(measured, 0.99), percentile(measured, 1.0));
    }

    private static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1 < 0 ? 0
                : (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
    }

    /** Sends one record every 1/rate seconds until {@code end}, each carrying its send time. */
    private void send(int rate, long end) {
        long interval = 1_000_000_000L / rate;
        String mqttPort = options.get("mqtt-port");
        Mqtt5BlockingClient mqtt = null;
        KafkaProducer<byte[], byte[]> producer = null;
        if (mqttPort != null) {
            mqtt = MqttClient.builder().useMqttVersion5().identifier("latency").serverHost("127.0.0.1")
                    .serverPort(Integer.parseInt(mqttPort)).buildBlocking();
            mqtt.connect();
        } else {
            producer = producer();
        }
        try {
            long next = System.nanoTime();
            while (next < end) {
                LockSupport.parkNanos(next - System.nanoTime());
                byte[] value = ByteBuffer.allocate(64).putLong(System.nanoTime()).array();
                if (mqtt != null) {
                    mqtt.publishWith().topic(get("mqtt-topic", topic() + "/latency")).qos(MqttQos.AT_LEAST_ONCE)
                            .payload(value).send();
                } else {
                    producer.send(new ProducerRecord<>(topic(), value));
                }
                next += interval;
            }
        } finally {
            if (mqtt != null) {
                mqtt.disconnect();
            }
            if (producer != null) {
                producer.close();
            }
        }
    }

    private void report(String scenario, Window window, int size, String extra) {
        System.out.printf(Locale.ROOT, "%s %s payload=%d records/s=%.0f MB/s=%.1f broker_cpu_s=%.2f"
                        + " records_per_broker_cpu_s=%.0f %s%n", get("label", ""), scenario, size, window.rate(),
                window.rate() * size / 1e6, window.brokerCpu(), window.perBrokerCpuSecond(), extra);
    }

    /** A count and the broker's CPU time over a measured window after a warm-up. */
    private record Window(long count, double seconds, double brokerCpu) {
        static Window measure(int warmup, int seconds, AtomicLong counter, BrokerCpu cpu) {
            LockSupport.parkNanos(warmup * 1_000_000_000L);
            long startCount = counter.get();
            double startCpu = cpu.seconds();
            long start = System.nanoTime();
            LockSupport.parkNanos(seconds * 1_000_000_000L);
            long count = counter.get() - startCount;
            double elapsed = (System.nanoTime() - start) / 1e9;
            return new Window(count, elapsed, cpu.seconds() - startCpu);
        }

        double rate() {
            return count / seconds;
        }

        double perBrokerCpuSecond() {
            return count / brokerCpu;
        }
    }
}
