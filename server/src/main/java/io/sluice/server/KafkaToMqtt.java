package io.sluice.server;

import io.sluice.broker.Broker;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.message.UserProperty;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;
import io.sluice.broker.topic.TopicName;
import io.sluice.kafka.MqttPublisher;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.storage.Header;
import io.sluice.storage.Record;
import io.sluice.streams.Stream;
import io.sluice.streams.StreamRecords;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Records produced by Kafka clients, published on to MQTT. A record goes out when its key is a
 * valid MQTT topic name (UTF-8) that matches its stream's filter and the producer may publish
 * there (the ACL, with Kafka's client.id as client id and the SASL user as user name); the others
 * stay in the stream only. It goes to subscribers, retained messages and every capture of that
 * topic except the stream it was produced to, which holds it already. QoS and RETAIN come from the
 * record's {@code mqtt.qos} and {@code mqtt.retain} headers (QoS 1 and no RETAIN without them);
 * other headers with UTF-8 values become MQTT 5 user properties. Runs on the stream's appender
 * thread; routing does not block.
 */
final class KafkaToMqtt implements MqttPublisher {
    /** The QoS of a record without an {@code mqtt.qos} header: it is durable already, so at least once. */
    private static final int DEFAULT_QOS = 1;

    private final Broker broker;
    private final Function<Stream, StreamTap> taps;

    /** @param taps the tap of a stream, or null when the stream has none (being deleted) */
    KafkaToMqtt(Broker broker, Function<Stream, StreamTap> taps) {
        this.broker = broker;
        this.taps = taps;
    }

    @Override
    public void publish(ClientIdentity producer, Stream stream, List<Record> records) {
        StreamTap tap = taps.apply(stream);
        if (tap == null) {
            return;
        }
        TopicFilter filter = tap.topicFilter();
        long now = System.currentTimeMillis();
        for (Record record : records) {
            String topic = topic(record.key());
            if (topic != null && filter.matches(topic) && !topic.startsWith("$")
                    && broker.authorizer().mayPublish(producer, topic)) {
                Message message = new Message(topic, record.value() == null ? new byte[0] : record.value(),
                        StreamRecords.qos(record, DEFAULT_QOS), StreamRecords.retain(record), properties(record), null, now);
                broker.router().publish(message, null, tap);
            }
        }
    }

    /** The key as an MQTT topic name, or null when it is not one. */
    private String topic(byte[] key) {
        String topic = utf8(key);
        if (topic == null) {
            return null;
        }
        try {
            TopicName.validate(topic, broker.settings().maxTopicLevels());
            return topic;
        } catch (InvalidTopicException e) {
            return null;
        }
    }

    private static MessageProperties properties(Record record) {
        List<UserProperty> properties = new ArrayList<>();
        for (Header header : record.headers()) {
            String value = utf8(header.value());
            if (value != null && !header.key().startsWith("mqtt.")) {
                properties.add(new UserProperty(header.key(), value));
            }
        }
        return properties.isEmpty() ? MessageProperties.NONE : new MessageProperties(-1, -1, null, null, null, properties);
    }

    private static String utf8(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
