package io.sluice.server.config;

import io.sluice.broker.MqttSettings;
import io.sluice.broker.persistence.PersistenceSettings;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything the server reads from {@code conf/sluice.conf}, validated.
 *
 * @param listeners       the MQTT listeners to bind
 * @param mqtt            protocol limits ({@code mqtt { }})
 * @param ioThreads       {@code system.num_taskq_thread}: event-loop threads, 0 = one per core
 * @param logLevel        {@code log.level}
 * @param auth            {@code auth { }}: authentication and the ACL
 * @param monitoring      {@code system.sys_interval} and {@code http_server}
 * @param persistence     {@code persistence { }}: durable broker state
 * @param exchanges       {@code exchange_client.<id> { }}: the capture paths
 * @param pluginsDir      {@code plugins.dir}: where stream plugin jars are loaded from
 * @param streams         {@code streams { }}: the streams and where they live
 * @param kafka           {@code listeners.kafka}: the Kafka listener, or null
 * @param bridges         {@code bridges { }}: MQTT and Kafka bridges and their backlogs
 */
public record SluiceConfig(List<ListenerConfig> listeners, MqttSettings mqtt, int ioThreads, String logLevel,
                           AuthConfig auth, MonitoringConfig monitoring, PersistenceSettings persistence,
                           List<ExchangeConfig> exchanges, Path pluginsDir, StreamsConfig streams, KafkaConfig kafka,
                           BridgesConfig bridges) {
    public SluiceConfig {
        exchanges = List.copyOf(exchanges);
    }
}
