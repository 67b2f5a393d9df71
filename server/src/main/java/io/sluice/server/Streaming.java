package io.sluice.server;

import io.sluice.broker.Broker;
import io.sluice.broker.routing.Tap;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.kafka.KafkaAuthorizer;
import io.sluice.kafka.KafkaListener;
import io.sluice.kafka.KafkaSettings;
import io.sluice.net.EventLoops;
import io.sluice.net.ListenerSpec;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.net.tls.TlsContext;
import io.sluice.server.config.ConfigError;
import io.sluice.server.config.KafkaConfig;
import io.sluice.server.config.SluiceConfig;
import io.sluice.server.config.StreamsConfig;
import io.sluice.storage.Engine;
import io.sluice.storage.StorageAdapter;
import io.sluice.storage.StorageException;
import io.sluice.streams.InvalidStreamException;
import io.sluice.streams.PartitionKey;
import io.sluice.streams.Stream;
import io.sluice.streams.Streams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.typesafe.config.ConfigUtil;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The streams side of the server: the storage adapter under {@code streams.dir}, the streams on it,
 * one broker {@link Tap} per stream (added and removed as Kafka clients create and delete streams),
 * and the Kafka listener with what it needs from the broker: the password file, the ACL and a way
 * to publish into MQTT. Opening fails start-up with the key path of a stream that does not fit its
 * data on disk; closing stops the listener, appends what the streams still hold, and closes the
 * adapter.
 */
final class Streaming implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Streaming.class);

    private final StorageAdapter adapter;
    private final Streams streams;
    private final Map<String, StreamTap> taps = new ConcurrentHashMap<>();
    private KafkaListener kafka;

    private Streaming(StorageAdapter adapter, Streams streams) {
        this.adapter = adapter;
        this.streams = streams;
    }

    static Streaming open(SluiceConfig config) {
        StreamsConfig settings = config.streams();
        if (settings.streams().isEmpty() && config.kafka() == null) {
            return new Streaming(null, null);
        }
        StorageAdapter adapter;
        try {
            adapter = StorageAdapter.open(settings.dir(), null, settings.adapter());
        } catch (StorageException e) {
            throw new IllegalStateException("streams.dir: " + e.getMessage(), e);
        }
        Streams streams;
        try {
            streams = Streams.open(adapter, settings.streams());
        } catch (InvalidStreamException e) {
            adapter.close();
            throw new ConfigError(ConfigUtil.joinPath("streams", e.stream()) + "." + e.key(), e.getMessage());
        } catch (RuntimeException e) {
            adapter.close();
            throw e;
        }
        Streaming streaming = new Streaming(adapter, streams);
        try {
            for (Stream stream : streams.all()) {
                streaming.taps.put(stream.name(), new StreamTap(stream));
            }
        } catch (InvalidTopicException e) {
            streaming.close();
            throw new IllegalStateException("a stream's topic filter is invalid: " + e.getMessage(), e);
        }
        return streaming;
    }

    /** The taps of the streams there are now, for the broker's router. */
    List<Tap> taps() {
        return new ArrayList<>(taps.values());
    }

    /** Keeps the router's taps in step with streams created and deleted at run time. */
    void attach(Broker broker) {
        if (streams == null) {
            return;
        }
        streams.onCreated(stream -> {
            try {
                StreamTap tap = new StreamTap(stream);
                taps.put(stream.name(), tap);
                broker.router().addTap(tap);
            } catch (InvalidTopicException e) {
                LOG.error("stream '{}' created with an invalid topic filter '{}'; it captures nothing from MQTT",
                        stream.name(), stream.topic(), e);
            }
        });
        streams.onDeleted(stream -> {
            StreamTap tap = taps.remove(stream.name());
            if (tap != null) {
                try {
                    broker.router().removeTap(tap);
                } catch (InvalidTopicException e) {
                    LOG.error("stream '{}': removing its tap failed", stream.name(), e);
                }
            }
        });
    }

    /** Binds {@code listeners.kafka}, if configured. */
    void startKafka(SluiceConfig config, AccessControl access, Broker broker, EventLoops loops, TlsContext tls) {
        KafkaConfig listener = config.kafka();
        if (listener == null) {
            return;
        }
        ListenerSpec spec = new ListenerSpec("kafka", listener.bind(), tls, null, listener.maxConnections(),
                listener.maxConnRate());
        KafkaSettings settings = new KafkaSettings(spec, listener.advertisedHost(), listener.advertisedPort(),
                listener.maxRequestSize(), Engine.SEGMENT, PartitionKey.TOPIC, config.streams().defaults());
        kafka = KafkaListener.bind(settings, streams, access.authenticator(), new AclTopics(access), 
                new KafkaToMqtt(broker, stream -> taps.get(stream.name())), loops);
    }

    /** Kafka topic permissions from the ACL: reading is subscribing, writing is publishing, on the topic's name. */
    private record AclTopics(AccessControl access) implements KafkaAuthorizer {
        @Override
        public boolean mayRead(ClientIdentity client, String topic) {
            return access.authorizer().maySubscribe(client, topic);
        }

        @Override
        public boolean mayWrite(ClientIdentity client, String topic) {
            return access.authorizer().mayPublish(client, topic);
        }
    }

    /** The Kafka listener, or null. */
    KafkaListener kafka() {
        return kafka;
    }

    /** The streams, or null when none is configured and there is no Kafka listener. */
    Streams streams() {
        return streams;
    }

    /** Stops the Kafka listener: no more produce requests. */
    void closeKafka() {
        if (kafka != null) {
            kafka.close();
            kafka = null;
        }
    }

    /** Appends what the streams hold, writes their producer state, and closes the storage. */
    @Override
    public void close() {
        closeKafka();
        if (streams != null) {
            streams.close();
        }
        if (adapter != null) {
            adapter.close();
        }
    }
}
