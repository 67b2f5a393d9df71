package io.sluice.kafka;

import java.util.List;

import io.sluice.net.auth.ClientIdentity;
import io.sluice.storage.Record;
import io.sluice.streams.Stream;

/**
 * Where records produced by Kafka clients go on to MQTT: the server publishes each record whose
 * key is a valid MQTT topic matching the stream's filter, if the ACL lets the producer publish
 * there, to the MQTT subscribers and to every other capture of that topic, but not again to
 * {@code stream} itself. Called on the stream's appender thread once the records are appended
 * (never for a retried duplicate): must not block.
 */
@FunctionalInterface
public interface MqttPublisher {
    /** Publishes nothing. */
    MqttPublisher NONE = (producer, stream, records) -> { };

    void publish(ClientIdentity producer, Stream stream, List<Record> records);
}
