package io.sluice.kafka;

import io.sluice.settings.InvalidSettingException;
import java.util.Objects;

import io.sluice.net.ListenerSpec;
import io.sluice.storage.Engine;
import io.sluice.storage.LogSettings;
import io.sluice.streams.PartitionKey;

/**
 * The Kafka listener ({@code listeners.kafka { bind, advertised, ssl, max_request_size, ... }}).
 *
 * @param listener          where it binds, TLS, connection limits (the WebSocket path must be null)
 * @param advertisedHost    the host clients are told to connect to; null: the bound address
 * @param advertisedPort    the port clients are told to connect to; 0: the bound port
 * @param maxRequestSize    {@code max_request_size}: the largest request accepted, in bytes; a larger one closes the connection
 * @param createdEngine     the engine of streams created by Kafka clients (CreateTopics)
 * @param createdPartitionKey how MQTT messages pick their partition in a stream created by a Kafka client
 * @param createdLog        the storage settings of streams created by Kafka clients, before the topic's own configs
 */
public record KafkaSettings(ListenerSpec listener, String advertisedHost, int advertisedPort, int maxRequestSize,
                            Engine createdEngine, PartitionKey createdPartitionKey, LogSettings createdLog) {
    /** The default of {@code max_request_size}: 16 MiB, sixteen times a producer's default request. */
    public static final int DEFAULT_MAX_REQUEST_SIZE = 16 << 20;
    /** Smallest accepted {@code max_request_size}: room for a producer's default request and its headers. */
    public static final int MIN_MAX_REQUEST_SIZE = 1 << 20;

    public KafkaSettings {
        Objects.requireNonNull(listener, "listener");
        if (listener.webSocketPath() != null) {
            throw new IllegalArgumentException("the Kafka listener does not speak WebSocket");
        }
        if (advertisedPort < 0 || advertisedPort > 65535) {
            throw new InvalidSettingException("advertised", "port must be between 0 and 65535, got " + advertisedPort);
        }
        if (maxRequestSize < MIN_MAX_REQUEST_SIZE) {
            throw new InvalidSettingException("max_request_size", "must be at least " + MIN_MAX_REQUEST_SIZE + " bytes, got "
                    + maxRequestSize);
        }
        Objects.requireNonNull(createdEngine, "createdEngine");
        Objects.requireNonNull(createdPartitionKey, "createdPartitionKey");
        Objects.requireNonNull(createdLog, "createdLog");
    }

    /** A plain listener with the defaults, advertising the bound address; for tests and embedding. */
    public static KafkaSettings of(ListenerSpec listener) {
        return new KafkaSettings(listener, null, 0, DEFAULT_MAX_REQUEST_SIZE, Engine.SEGMENT, PartitionKey.TOPIC,
                LogSettings.defaults());
    }
}
