package io.sluice.server.metrics;

import io.sluice.broker.metrics.BrokerCounter;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.broker.Broker;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The broker's numbers for Prometheus, read at scrape time: every {@link BrokerCounter} as the
 * counter {@code sluice_<name>_total} (for example {@code sluice_messages_received_total}) and the
 * gauges {@code sluice_clients_connected}, {@code sluice_connections_open}, {@code sluice_sessions},
 * {@code sluice_subscriptions}, {@code sluice_retained_messages} and {@code sluice_uptime_seconds}.
 * Thread-safe; nothing is kept between scrapes.
 */
public final class BrokerCollector implements MultiCollector {
    private final Broker broker;

    public BrokerCollector(Broker broker) {
        this.broker = broker;
    }

    @Override
    public MetricSnapshots collect() {
        List<MetricSnapshot> snapshots = new ArrayList<>();
        for (BrokerCounter counter : BrokerCounter.values()) {
            snapshots.add(CounterSnapshot.builder()
                    .name("sluice_" + counter.name().toLowerCase(Locale.ROOT))
                    .help(counter.help())
                    .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .value(broker.metrics().get(counter)).build())
                    .build());
        }
        snapshots.add(gauge("sluice_clients_connected", "clients connected (CONNECT accepted, not yet closed)",
                broker.connectedClients().get()));
        snapshots.add(gauge("sluice_connections_open", "network connections open on all listeners",
                broker.openConnections().get()));
        snapshots.add(gauge("sluice_sessions", "sessions, online and offline", broker.sessions().size()));
        snapshots.add(gauge("sluice_subscriptions", "subscriptions, shared ones counted per member",
                broker.router().subscriptionCount()));
        snapshots.add(gauge("sluice_retained_messages", "retained messages held",
                broker.router().retained().size()));
        snapshots.add(gauge("sluice_uptime_seconds", "seconds since the broker started",
                (System.currentTimeMillis() - broker.startedMillis()) / 1000.0));
        return new MetricSnapshots(snapshots);
    }

    private static GaugeSnapshot gauge(String name, String help, double value) {
        return GaugeSnapshot.builder().name(name).help(help)
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).build())
                .build();
    }
}
