package io.sluice.bridges.kafka;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import io.sluice.bridges.mqtt.TopicFilter;
import io.sluice.settings.InvalidSettingException;

/**
 * One {@code bridges.kafka.<name>} block: a Kafka producer bridge.
 *
 * @param name             the block's name
 * @param bootstrapHosts   {@code bootstrap_hosts}: {@code "host:port"}, several separated by commas
 * @param forwards         {@code forwards}
 * @param acks             {@code acks}: {@code all}, {@code 1} or {@code 0}
 * @param compression      {@code compression}: {@code none}, {@code gzip}, {@code snappy}, {@code lz4} or {@code zstd}
 * @param lingerMillis     {@code linger}: how long the producer waits to fill a batch
 * @param batchBytes       {@code batch_size}: the producer's batch size per partition
 * @param clientId         {@code clientid}: the producer's {@code client.id}
 * @param backoffMaxMillis {@code backoff_max}: the longest wait between two connection attempts
 * @param cancelTimeoutMillis {@code cancel_timeout}: how long a record may wait for its acknowledgement
 *                         (the producer's {@code delivery.timeout.ms}) before the connection counts as broken
 * @param maxInflight      {@code max_inflight}: records sent and not yet acknowledged, at most
 * @param security         {@code security { }}, or null for PLAINTEXT
 */
public record KafkaBridgeSettings(String name, String bootstrapHosts, List<KafkaForward> forwards, String acks,
                                  String compression, long lingerMillis, int batchBytes, String clientId,
                                  long backoffMaxMillis, long cancelTimeoutMillis, int maxInflight,
                                  Security security) {

    public KafkaBridgeSettings {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(clientId, "clientid");
        forwards = List.copyOf(forwards);
        if (bootstrapHosts == null || bootstrapHosts.isBlank()) {
            throw new InvalidSettingException("bootstrap_hosts", "is required: \"host:9092\", several separated by commas");
        }
        for (String host : bootstrapHosts.split(",")) {
            if (host.trim().lastIndexOf(':') <= 0) {
                throw new InvalidSettingException("bootstrap_hosts", "'" + host.trim() + "' is not \"host:port\"");
            }
        }
        acks = acks.toLowerCase(Locale.ROOT);
        if (!List.of("all", "-1", "1", "0").contains(acks)) {
            throw new InvalidSettingException("acks", "must be all, 1 or 0, got '" + acks + "'");
        }
        compression = compression.toLowerCase(Locale.ROOT);
        if (!List.of("none", "gzip", "snappy", "lz4", "zstd").contains(compression)) {
            throw new InvalidSettingException("compression", "must be none, gzip, snappy, lz4 or zstd, got '"
                    + compression + "'");
        }
        if (maxInflight < 1) {
            throw new InvalidSettingException("max_inflight", "must be at least 1, got " + maxInflight);
        }
        if (cancelTimeoutMillis < 1000) {
            throw new InvalidSettingException("cancel_timeout", "must be at least 1s for a Kafka bridge, got "
                    + cancelTimeoutMillis + " ms");
        }
    }

    /** One entry of {@code forwards}: local messages matching {@code local_topic} go to Kafka topic {@code kafka_topic}. */
    public record KafkaForward(String localTopic, String kafkaTopic, KeySource key) {
        public KafkaForward {
            TopicFilter.check("local_topic", localTopic);
            if (kafkaTopic == null || !kafkaTopic.matches("[a-zA-Z0-9._-]{1,249}")) {
                throw new InvalidSettingException("kafka_topic", "must be 1 to 249 of a-z A-Z 0-9 . _ -, got '"
                        + kafkaTopic + "'");
            }
            Objects.requireNonNull(key, "key");
        }
    }

    /** What a record's key is ({@code key}): the MQTT topic, the publisher's client id, or none. */
    public enum KeySource {
        TOPIC, CLIENTID, NONE;

        /** Parses a configuration value. */
        public static KeySource fromConfig(String value) {
            for (KeySource key : values()) {
                if (key.name().equalsIgnoreCase(value)) {
                    return key;
                }
            }
            throw new IllegalArgumentException("must be topic, clientid or none, got '" + value + "'");
        }
    }

    /**
     * {@code security { }}: SASL and/or TLS towards the Kafka cluster.
     *
     * @param saslMechanism {@code sasl.mechanism}: {@code PLAIN}, {@code SCRAM-SHA-256} or {@code SCRAM-SHA-512}; null for no SASL
     * @param username      {@code sasl.username}
     * @param password      {@code sasl.password}
     * @param tls           whether the connection is TLS ({@code ssl { }} present)
     * @param caCertFile    {@code ssl.cacertfile}: PEM CA certificates, or null for the JDK's
     * @param certFile      {@code ssl.certfile}: PEM client certificate chain, or null
     * @param keyFile       {@code ssl.keyfile}: its PKCS#8 PEM key, or null
     * @param keyPassword   {@code ssl.key_password}, or null
     * @param verifyHostname {@code ssl.verify_hostname}: check the broker's certificate names its host
     */
    public record Security(String saslMechanism, String username, String password, boolean tls, Path caCertFile,
                           Path certFile, Path keyFile, String keyPassword, boolean verifyHostname) {
        public Security {
            if (saslMechanism != null) {
                saslMechanism = saslMechanism.toUpperCase(Locale.ROOT);
                if (!List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512").contains(saslMechanism)) {
                    throw new InvalidSettingException("security.sasl.mechanism", "must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, got '"
                            + saslMechanism + "'");
                }
                if (username == null || password == null) {
                    throw new InvalidSettingException("security.sasl", "needs username and password");
                }
            }
            if ((certFile == null) != (keyFile == null)) {
                throw new InvalidSettingException("security.ssl.keyfile", "goes together with security.ssl.certfile: both or neither");
            }
        }

        /** Kafka's {@code security.protocol} for these settings. */
        public String protocol() {
            return (saslMechanism != null ? "SASL_" : "") + (tls ? "SSL" : "PLAINTEXT");
        }
    }
}
