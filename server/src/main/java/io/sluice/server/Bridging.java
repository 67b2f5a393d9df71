package io.sluice.server;

import java.util.ArrayList;
import java.util.List;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.bridges.Bridges;
import io.sluice.bridges.Forwarder;
import io.sluice.broker.Broker;
import io.sluice.broker.routing.Tap;
import io.sluice.broker.sys.SysTopics;
import io.sluice.server.config.BridgesConfig;
import io.sluice.server.metrics.BridgeMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bridges side of the server: opens every configured bridge with its backlog before the broker
 * exists (each forward rule becomes a broker tap), starts them connecting once the broker can take
 * what the remotes send, adds their status to {@code $SYS} and {@code /metrics}, and closes them
 * after the listeners, so that whatever was acknowledged to a publisher is in a backlog.
 */
final class Bridging implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Bridging.class);

    private final Bridges bridges;
    private final BrokerPublisher publisher;
    private final List<Tap> taps = new ArrayList<>();

    private Bridging(Bridges bridges, BrokerPublisher publisher) {
        this.bridges = bridges;
        this.publisher = publisher;
        for (Forwarder forwarder : bridges.forwarders()) {
            taps.add(new BridgeTap(forwarder));
        }
    }

    /**
     * Opens the backlogs of every bridge; a backlog or TLS file that cannot be opened stops start-up
     * with an {@link IllegalStateException} naming the bridge and the file.
     */
    static Bridging open(BridgesConfig config) {
        for (String note : config.notes()) {
            LOG.info("{}", note);
        }
        BrokerPublisher publisher = new BrokerPublisher();
        if (!config.isEmpty()) {
            LOG.info("bridges: node id {} (bridges.node_id, loop safety for MQTT 5)", config.nodeId());
        }
        return new Bridging(Bridges.open(config.nodeId(), config.mqtt(), config.mqttCache(), config.kafka(), config.kafkaCache(),
                publisher), publisher);
    }

    /** The broker taps, one per forward rule. */
    List<Tap> taps() {
        return taps;
    }

    Bridges bridges() {
        return bridges;
    }

    /** Publishes what remotes send into {@code broker}, and starts connecting. */
    void start(Broker broker) {
        publisher.bind(broker);
        bridges.start();
    }

    /** Adds the bridges' status to {@code $SYS} and {@code /metrics}. */
    void registerMetrics(SysTopics sysTopics, PrometheusRegistry registry) {
        if (bridges.all().isEmpty()) {
            return;
        }
        BridgeMetrics metrics = new BridgeMetrics(bridges);
        registry.register(metrics);
        sysTopics.addSource(metrics::sysValues);
    }

    @Override
    public void close() {
        bridges.close();
    }
}
