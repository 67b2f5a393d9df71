package io.sluice.server.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.BridgeState;
import io.sluice.bridges.BridgeStatus;
import io.sluice.bridges.Bridges;

/**
 * The bridges' numbers, read when asked: for Prometheus every {@link BridgeCounter} as
 * {@code sluice_bridge_<counter>_total{bridge="<name>",type="mqtt|kafka"}}, and the gauges
 * {@code sluice_bridge_backlog_messages}, {@code sluice_bridge_backlog_bytes},
 * {@code sluice_bridge_window}, {@code sluice_bridge_connected} (0 or 1) and
 * {@code sluice_bridge_state{state="..."}} (1 for the current state, 0 for the others); for
 * {@code $SYS} the same under {@code bridges/<name>/...}, plus {@code state}, {@code remote} and
 * {@code last_error}. Thread-safe; nothing is kept between reads.
 */
public final class BridgeMetrics implements MultiCollector {
    private final Bridges bridges;

    public BridgeMetrics(Bridges bridges) {
        this.bridges = bridges;
    }

    @Override
    public MetricSnapshots collect() {
        List<BridgeStatus> statuses = bridges.statuses();
        List<MetricSnapshot> snapshots = new ArrayList<>();
        for (BridgeCounter counter : BridgeCounter.values()) {
            CounterSnapshot.Builder builder = CounterSnapshot.builder()
                    .name("sluice_bridge_" + counter.metricName().replaceFirst("_total$", "")).help(counter.help());
            for (BridgeStatus status : statuses) {
                builder.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels(status))
                        .value(status.counters().get(counter.metricName())).build());
            }
            snapshots.add(builder.build());
        }
        snapshots.add(gauge("backlog_messages", "messages stored and not yet acknowledged by the remote", statuses,
                BridgeStatus::backlog));
        snapshots.add(gauge("backlog_bytes", "bytes of those messages", statuses, BridgeStatus::backlogBytes));
        snapshots.add(gauge("window", "messages that may be unacknowledged at once on the current connection",
                statuses, BridgeStatus::window));
        snapshots.add(gauge("connected", "1 while the connection to the remote is up", statuses,
                s -> s.state().isConnected() ? 1 : 0));
        GaugeSnapshot.Builder state = GaugeSnapshot.builder().name("sluice_bridge_state")
                .help("1 for the bridge's current state (connecting, connected, draining, backoff, stopped)");
        for (BridgeStatus status : statuses) {
            for (BridgeState each : BridgeState.values()) {
                state.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .labels(labels(status).add("state", each.label()))
                        .value(status.state() == each ? 1 : 0).build());
            }
        }
        snapshots.add(state.build());
        return new MetricSnapshots(snapshots);
    }

    private static Labels labels(BridgeStatus status) {
        return Labels.of("bridge", status.name(), "type", status.type());
    }

    private static GaugeSnapshot gauge(String name, String help, List<BridgeStatus> statuses,
                                       ToDoubleFunction<BridgeStatus> value) {
        GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name("sluice_bridge_" + name).help(help);
        for (BridgeStatus status : statuses) {
            builder.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels(status))
                    .value(value.applyAsDouble(status)).build());
        }
        return builder.build();
    }

    /** Values for {@code $SYS/broker/bridges/<name>/...}. */
    public Map<String, Object> sysValues() {
        Map<String, Object> values = new LinkedHashMap<>();
        for (BridgeStatus status : bridges.statuses()) {
            String prefix = "bridges/" + status.name() + "/";
            values.put(prefix + "state", status.state().label());
            values.put(prefix + "remote", status.remote());
            values.put(prefix + "backlog", status.backlog());
            values.put(prefix + "backlog_bytes", status.backlogBytes());
            values.put(prefix + "window", status.window());
            status.counters().forEach((name, value) -> values.put(prefix + name.replaceFirst("_total$", ""), value));
            values.put(prefix + "last_error", status.lastError() == null ? "" : status.lastError());
        }
        return values;
    }
}
