package io.sluice.bridges.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.Remote;
import io.sluice.bridges.UserProperty;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka cluster as a bridge's remote, through Apache Kafka's own producer. A "connection" is one
 * producer: it counts as up once the cluster answered metadata for every topic the bridge writes
 * to, and as lost when a record is not acknowledged within {@code cancel_timeout} (the producer's
 * delivery timeout) or cannot be sent; the bridge then closes it, waits, opens a new one and sends
 * again from its backlog's start. With {@code acks = all} the producer is idempotent, so its own
 * retries never duplicate or reorder a partition; the bridge's resends after a lost connection may
 * duplicate (at least once, never lost).
 *
 * <p>Each record: the payload as value, the MQTT creation time as timestamp, the key the forward
 * chose, and headers {@code mqtt_topic} (the local MQTT topic), {@code mqtt_qos}, {@code mqtt_retain}
 * (only when set) and one header per MQTT 5 user property, in order.
 *
 * <p>{@link #connect} and {@link #send} run on the bridge thread; acknowledgements arrive on the
 * producer's I/O thread.
 */
public final class KafkaRemote implements Remote {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaRemote.class);
    /** How long a metadata request or a full producer buffer may block the bridge thread. */
    static final long MAX_BLOCK_MILLIS = 5_000;

    private final KafkaBridgeSettings settings;
    private final Set<String> topics = new LinkedHashSet<>();
    private KafkaProducer<byte[], byte[]> producer;
    private Link link;

    public KafkaRemote(KafkaBridgeSettings settings) {
        this.settings = settings;
        for (KafkaBridgeSettings.KafkaForward forward : settings.forwards()) {
            topics.add(forward.kafkaTopic());
        }
    }

    @Override
    public String address() {
        return "kafka://" + settings.bootstrapHosts();
    }

    /**
     * One connection's events, and whether it failed: a producer reports most send failures through
     * the callback rather than by throwing (a metadata timeout, after blocking {@code max.block.ms}),
     * so the send loop checks this before each record instead of blocking again for every one.
     */
    private static final class Link {
        private final Events events;
        private volatile boolean failed;

        Link(Events events) {
            this.events = events;
        }

        void fail(String reason, Exception e) {
            if (!failed) {
                failed = true;
                events.failed(reason, e);
            }
        }
    }

    @Override
    public void connect(Events events) {
        closeProducer();
        this.link = new Link(events);
        try {
            producer = new KafkaProducer<>(producerProperties(settings), new ByteArraySerializer(),
                    new ByteArraySerializer());
            int partitions = 0;
            for (String topic : topics) {
                partitions += producer.partitionsFor(topic).size();
            }
            events.connected(settings.maxInflight(), topics.size() + " topics " + topics + ", " + partitions
                    + " partitions, acks " + settings.acks() + ", compression " + settings.compression());
        } catch (KafkaException | IOException e) {
            closeProducer();
            link.fail(describe(e), e);
        }
    }

    @Override
    public void send(List<Outgoing> batch) {
        KafkaProducer<byte[], byte[]> current = producer;
        Link reportTo = link;
        if (current == null) {
            return;
        }
        for (Outgoing outgoing : batch) {
            if (reportTo.failed) {
                return; // the bridge sends it again on the next connection
            }
            try {
                current.send(record(outgoing), new Acknowledgement(outgoing.offset(), reportTo));
            } catch (KafkaException e) {
                reportTo.fail("sending to Kafka failed: " + describe(e), e);
                return;
            }
        }
    }

    private static ProducerRecord<byte[], byte[]> record(Outgoing outgoing) {
        BridgeMessage message = outgoing.record().message();
        RecordHeaders headers = new RecordHeaders();
        headers.add(new RecordHeader("mqtt_topic", message.topic().getBytes(StandardCharsets.UTF_8)));
        headers.add(new RecordHeader("mqtt_qos", new byte[] {(byte) ('0' + message.qos())}));
        if (message.retain()) {
            headers.add(new RecordHeader("mqtt_retain", "true".getBytes(StandardCharsets.US_ASCII)));
        }
        for (UserProperty property : message.properties().userProperties()) {
            headers.add(new RecordHeader(property.name(), property.value().getBytes(StandardCharsets.UTF_8)));
        }
        return new ProducerRecord<>(outgoing.record().target(), null, message.createdMillis(), outgoing.record().key(),
                message.payload(), headers);
    }

    /** Reports one record's outcome; a record Kafka will never take is refused, anything else ends the connection. */
    private record Acknowledgement(long offset, Link link) implements Callback {
        @Override
        public void onCompletion(RecordMetadata metadata, Exception e) {
            if (e == null) {
                link.events.acknowledged(offset);
            } else if (e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException) {
                link.events.refused(offset, BridgeCounter.TOO_LARGE, e.getMessage());
            } else if (e instanceof InvalidTopicException || e instanceof SerializationException) {
                link.events.refused(offset, BridgeCounter.REFUSED_BY_REMOTE, e.getMessage());
            } else {
                link.fail("Kafka did not acknowledge a record: " + describe(e), e);
            }
        }
    }

    private static String describe(Exception e) {
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    @Override
    public void disconnect(String reason) {
        if (producer != null) {
            LOG.debug("bridge {}: closing the producer: {}", settings.name(), reason);
        }
        closeProducer();
    }

    private void closeProducer() {
        KafkaProducer<byte[], byte[]> closing = producer;
        producer = null;
        if (closing != null) {
            // Records still in flight fail; the bridge sends them again on the next connection.
            closing.close(Duration.ZERO);
        }
    }

    @Override
    public void close() {
        closeProducer();
    }

    /** The producer's configuration for these settings. */
    static Properties producerProperties(KafkaBridgeSettings settings) throws IOException {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapHosts());
        props.put(ProducerConfig.CLIENT_ID_CONFIG, settings.clientId());
        String acks = settings.acks().equals("-1") ? "all" : settings.acks();
        props.put(ProducerConfig.ACKS_CONFIG, acks);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, String.valueOf(acks.equals("all")));
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, settings.compression());
        props.put(ProducerConfig.LINGER_MS_CONFIG, String.valueOf(settings.lingerMillis()));
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(settings.batchBytes()));
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        long requestTimeout = Math.max(500, Math.min(30_000, (settings.cancelTimeoutMillis() - settings.lingerMillis()) / 2));
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(requestTimeout));
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                String.valueOf(Math.max(settings.cancelTimeoutMillis(), settings.lingerMillis() + requestTimeout)));
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(MAX_BLOCK_MILLIS));
        props.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "100");
        props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, String.valueOf(Math.max(100, settings.backoffMaxMillis())));
        KafkaBridgeSettings.Security security = settings.security();
        if (security != null) {
            security(props, security);
        }
        return props;
    }

    private static void security(Properties props, KafkaBridgeSettings.Security security) throws IOException {
        props.put("security.protocol", security.protocol());
        if (security.saslMechanism() != null) {
            props.put("sasl.mechanism", security.saslMechanism());
            String module = security.saslMechanism().equals("PLAIN")
                    ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            props.put("sasl.jaas.config", module + " required username=\"" + jaasEscape(security.username())
                    + "\" password=\"" + jaasEscape(security.password()) + "\";");
        }
        if (security.tls()) {
            if (security.caCertFile() != null) {
                props.put("ssl.truststore.type", "PEM");
                props.put("ssl.truststore.certificates", read(security.caCertFile()));
            }
            if (security.certFile() != null) {
                props.put("ssl.keystore.type", "PEM");
                props.put("ssl.keystore.certificate.chain", read(security.certFile()));
                props.put("ssl.keystore.key", read(security.keyFile()));
                if (security.keyPassword() != null) {
                    props.put("ssl.key.password", security.keyPassword());
                }
            }
            props.put("ssl.endpoint.identification.algorithm", security.verifyHostname() ? "https" : "");
        }
    }

    private static String read(Path file) throws IOException {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IOException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static String jaasEscape(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    @Override
    public String toString() {
        return "KafkaRemote[" + settings.name() + ", " + address() + "]";
    }
}
