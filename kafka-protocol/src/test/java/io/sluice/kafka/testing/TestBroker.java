package io.sluice.kafka.testing;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

import io.sluice.kafka.KafkaAuthorizer;
import io.sluice.kafka.KafkaListener;
import io.sluice.kafka.KafkaSettings;
import io.sluice.kafka.MqttPublisher;
import io.sluice.net.EventLoops;
import io.sluice.net.ListenerSpec;
import io.sluice.net.auth.Authenticator;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.StorageAdapter;
import io.sluice.streams.StreamSettings;
import io.sluice.streams.Streams;

/**
 * A Kafka listener over streams in a folder, in this JVM: the server's Kafka side without MQTT.
 * Opened on an ephemeral port of 127.0.0.1; {@link #restart()} closes and opens it again on the
 * same data and port.
 */
public final class TestBroker implements AutoCloseable {
    private final Path dir;
    private final List<StreamSettings> configured;
    private final Authenticator authenticator;
    private final KafkaAuthorizer authorizer;
    private final MqttPublisher publisher;
    private int advertisedPort;
    /** Retention and compaction pass interval; 0 for the adapter's default. */
    private long maintenanceMs;
    private LogScheduler scheduler;
    /** 0 until the first start; then the port every restart binds again, as a restarted server would. */
    private int boundPort;
    private EventLoops loops;
    private StorageAdapter adapter;
    private Streams streams;
    private KafkaListener listener;

    private TestBroker(Path dir, List<StreamSettings> configured, Authenticator authenticator, KafkaAuthorizer authorizer,
                       MqttPublisher publisher) {
        this.dir = dir;
        this.configured = configured;
        this.authenticator = authenticator;
        this.authorizer = authorizer;
        this.publisher = publisher;
    }

    public static TestBroker start(Path dir, List<StreamSettings> configured) {
        return start(dir, configured, Authenticator.ALLOW_ALL, KafkaAuthorizer.ALLOW_ALL, MqttPublisher.NONE);
    }

    public static TestBroker start(Path dir, List<StreamSettings> configured, Authenticator authenticator,
                                   KafkaAuthorizer authorizer, MqttPublisher publisher) {
        TestBroker broker = new TestBroker(dir, configured, authenticator, authorizer, publisher);
        broker.open();
        return broker;
    }

    /** A broker whose storage runs retention and compaction every {@code maintenanceMs}. */
    public static TestBroker startMaintainedEvery(Path dir, List<StreamSettings> configured, long maintenanceMs) {
        TestBroker broker = unopened(dir, configured);
        broker.maintenanceMs = maintenanceMs;
        broker.open();
        return broker;
    }

    /** A broker that tells clients to connect to {@code advertisedPort} (a proxy in front of it). */
    public static TestBroker startBehind(Path dir, List<StreamSettings> configured, int advertisedPort) {
        TestBroker broker = unopened(dir, configured);
        broker.advertisedPort = advertisedPort;
        broker.open();
        return broker;
    }

    /** A broker without authentication or publishing to MQTT, not yet open. */
    private static TestBroker unopened(Path dir, List<StreamSettings> configured) {
        return new TestBroker(dir, configured, Authenticator.ALLOW_ALL, KafkaAuthorizer.ALLOW_ALL, MqttPublisher.NONE);
    }

    private void open() {
        loops = new EventLoops(2);
        scheduler = maintenanceMs > 0 ? new LogScheduler("test", 1, maintenanceMs) : null;
        adapter = StorageAdapter.open(dir, scheduler);
        streams = Streams.open(adapter, configured);
        KafkaSettings defaults = KafkaSettings.of(ListenerSpec.tcp("kafka", new InetSocketAddress("127.0.0.1", boundPort)));
        KafkaSettings settings = new KafkaSettings(defaults.listener(), null, advertisedPort, defaults.maxRequestSize(),
                defaults.createdEngine(), defaults.createdPartitionKey(), defaults.createdLog());
        listener = KafkaListener.bind(settings, streams, authenticator, authorizer, publisher, loops);
        boundPort = port();
    }

    /** The port the listener is bound to. */
    public int port() {
        return listener.localAddress().getPort();
    }

    /** {@code host:port} for {@code bootstrap.servers}. */
    public String bootstrap() {
        return listener.advertised();
    }

    public Streams streams() {
        return streams;
    }

    /** Closes everything and opens it again on the same folder and port: clients reconnect as to a restarted server. */
    public void restart() {
        close();
        open();
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
            listener = null;
        }
        if (streams != null) {
            streams.close();
            streams = null;
        }
        if (adapter != null) {
            adapter.close();
            adapter = null;
        }
        if (scheduler != null) {
            scheduler.close();
            scheduler = null;
        }
        if (loops != null) {
            loops.close();
            loops = null;
        }
    }
}
