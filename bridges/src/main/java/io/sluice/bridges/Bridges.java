package io.sluice.bridges;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.bridges.backlog.Backlog;
import io.sluice.bridges.kafka.KafkaBridgeSettings;
import io.sluice.bridges.kafka.KafkaForwarder;
import io.sluice.bridges.kafka.KafkaRemote;
import io.sluice.bridges.mqtt.ForwardRule;
import io.sluice.bridges.mqtt.MqttBridgeSettings;
import io.sluice.bridges.mqtt.MqttForwarder;
import io.sluice.bridges.mqtt.MqttRemote;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.LogSettings;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every bridge of a server, built from its settings: each with its backlog (shard {@code mqtt-<name>}
 * or {@code kafka-<name>} of a storage adapter in the cache's {@code mounted_file_path}), its remote
 * and its forwarders, which the server makes into broker taps. Opening stores messages at once;
 * {@link #start()} begins connecting, once the broker can take what the remotes send. Closing
 * stores what was handed over, disconnects and leaves every backlog on disk for the next start.
 */
public final class Bridges implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Bridges.class);
    /**
     * Messages that may wait for a bridge's backlog writer before taps are refused (and count
     * {@code refused_busy}): room for 64 QoS 1 publishers each at a full Receive Maximum of 1,024
     * while the disk stalls for an fsync.
     */
    private static final int WRITER_QUEUE = 65_536;

    private final List<Bridge> bridges = new ArrayList<>();
    private final List<Forwarder> forwarders = new ArrayList<>();
    private final Map<Path, StorageAdapter> storages = new HashMap<>();
    private final String nodeId;
    private EventLoopGroup mqttLoops;

    private Bridges(String nodeId) {
        this.nodeId = java.util.Objects.requireNonNull(nodeId, "nodeId");
    }

    /** The client id under which MQTT bridge {@code name} publishes locally, for the ACL and for loop safety. */
    public static String localClientId(String name) {
        return "bridge:" + name;
    }

    /**
     * Opens the backlogs of the given bridges and builds their remotes.
     *
     * @param nodeId    this Sluice's {@code bridges.node_id}, which MQTT bridges add to the {@link BridgePath}
     * @param publisher where messages from MQTT remotes' subscriptions are published locally
     * @throws IllegalStateException naming the bridge and the file when a backlog or a TLS file cannot be opened
     */
    public static Bridges open(String nodeId, List<MqttBridgeSettings> mqtt, CacheSettings mqttCache,
                               List<KafkaBridgeSettings> kafka, CacheSettings kafkaCache, LocalPublisher publisher) {
        Bridges all = new Bridges(nodeId);
        try {
            if (!mqtt.isEmpty()) {
                all.mqttLoops = new MultiThreadIoEventLoopGroup(Math.min(mqtt.size(),
                        Runtime.getRuntime().availableProcessors()), new DefaultThreadFactory("sluice-bridge-io", true),
                        NioIoHandler.newFactory());
            }
            for (MqttBridgeSettings settings : mqtt) {
                all.openMqtt(settings, mqttCache, publisher);
            }
            for (KafkaBridgeSettings settings : kafka) {
                all.openKafka(settings, kafkaCache);
            }
        } catch (RuntimeException e) {
            all.close();
            throw e;
        }
        return all;
    }

    private void openMqtt(MqttBridgeSettings settings, CacheSettings cache, LocalPublisher publisher) {
        BridgeCounters counters = new BridgeCounters();
        String clientId = localClientId(settings.name());
        ClientIdentity identity = new ClientIdentity(clientId, null,
                InetSocketAddress.createUnresolved(settings.server().host(), settings.server().port()));
        MqttRemote remote;
        try {
            remote = new MqttRemote(settings, mqttLoops.next(), publisher, identity, counters, nodeId);
        } catch (IOException e) {
            throw new IllegalStateException("bridges.mqtt." + settings.name() + ".ssl: " + e.getMessage(), e);
        }
        Backlog backlog = backlog("mqtt-" + settings.name(), settings.name(), cache, counters);
        Bridge bridge = new Bridge(settings.name(), "mqtt", remote, backlog, counters, settings.backoffMaxMillis(),
                settings.cancelTimeoutMillis(), WRITER_QUEUE);
        bridges.add(bridge);
        for (ForwardRule rule : settings.forwards()) {
            forwarders.add(new MqttForwarder(rule, bridge, clientId, settings.retryQos0()));
        }
    }

    private void openKafka(KafkaBridgeSettings settings, CacheSettings cache) {
        BridgeCounters counters = new BridgeCounters();
        Backlog backlog = backlog("kafka-" + settings.name(), settings.name(), cache, counters);
        Bridge bridge = new Bridge(settings.name(), "kafka", new KafkaRemote(settings), backlog, counters,
                settings.backoffMaxMillis(), settings.cancelTimeoutMillis(), WRITER_QUEUE);
        bridges.add(bridge);
        for (KafkaBridgeSettings.KafkaForward rule : settings.forwards()) {
            forwarders.add(new KafkaForwarder(rule, bridge));
        }
    }

    private Backlog backlog(String shard, String bridge, CacheSettings cache, BridgeCounters counters) {
        StorageAdapter storage = storages.computeIfAbsent(cache.dir().toAbsolutePath().normalize(), dir -> {
            try {
                return StorageAdapter.open(dir);
            } catch (RuntimeException e) {
                throw new IllegalStateException("bridge " + bridge + ": cannot open the backlog storage in " + dir
                        + ": " + e.getMessage(), e);
            }
        });
        try {
            return Backlog.open(storage, shard, shardSettings(cache), bridge, cache.maxMessages(), cache.maxBytes(),
                    cache.fullPolicy(), counters);
        } catch (RuntimeException e) {
            throw new IllegalStateException("bridge " + bridge + ": cannot open its backlog (shard '" + shard + "' in "
                    + cache.dir() + "): " + e.getMessage(), e);
        }
    }

    /**
     * A backlog shard: no retention (only the bridge deletes, behind the remote's acknowledgements),
     * segments small enough that acknowledged ones are freed soon, the cache's flush policy.
     */
    static ShardSettings shardSettings(CacheSettings cache) {
        int segmentBytes = (int) Math.max(1 << 20, Math.min(64 << 20, cache.maxBytes() / 16));
        return ShardSettings.segment(LogSettings.builder()
                .segmentBytes(segmentBytes)
                .segmentIndexBytes(Math.max(LogSettings.MIN_SEGMENT_INDEX_BYTES, segmentBytes / 256))
                .flush(cache.flush())
                .flushIntervalMs(cache.flushIntervalMs())
                .flushMessages(cache.flushMessages())
                .retentionMs(LogSettings.UNLIMITED)
                .retentionBytes(LogSettings.UNLIMITED)
                .cleanupPolicy(CleanupPolicy.DELETE)
                .build());
    }

    /** One per forward rule of every bridge: what the server turns into broker taps. */
    public List<Forwarder> forwarders() {
        return List.copyOf(forwarders);
    }

    /** Every bridge, in configuration order (MQTT first). */
    public List<Bridge> all() {
        return List.copyOf(bridges);
    }

    /** Begins connecting every bridge to its remote. */
    public void start() {
        for (Bridge bridge : bridges) {
            bridge.start();
        }
    }

    /** The status of every bridge now. */
    public List<BridgeStatus> statuses() {
        List<BridgeStatus> statuses = new ArrayList<>(bridges.size());
        for (Bridge bridge : bridges) {
            statuses.add(bridge.status());
        }
        return statuses;
    }

    @Override
    public void close() {
        for (Bridge bridge : bridges) {
            try {
                bridge.close();
            } catch (RuntimeException e) {
                LOG.error("bridge {}: closing failed", bridge.name(), e);
            }
        }
        if (mqttLoops != null) {
            mqttLoops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
        for (StorageAdapter storage : storages.values()) {
            try {
                storage.close();
            } catch (RuntimeException e) {
                LOG.error("closing the bridges' storage failed", e);
            }
        }
    }
}
