package io.sluice.server.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.broker.persistence.BrokerState;

import java.util.List;
import java.util.Map;

/**
 * The broker state's health flag, as the exchanges' is shown: the gauge {@code sluice_state_healthy}
 * and {@code $SYS/broker/state/health} ({@code ok}, or why its journal refuses changes). Its
 * counters are broker counters ({@code sluice_state_journal_failures_total},
 * {@code sluice_state_writes_refused_total}). Thread-safe; nothing is kept between reads.
 */
public final class StateMetrics implements MultiCollector {
    private final BrokerState state;

    public StateMetrics(BrokerState state) {
        this.state = state;
    }

    @Override
    public MetricSnapshots collect() {
        return new MetricSnapshots(GaugeSnapshot.builder().name("sluice_state_healthy")
                .help("1 while the broker state takes changes; 0 once its journal's writer thread failed, until a restart "
                        + "(see /health for why)")
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(HealthFlag.gaugeValue(problems())).build())
                .build());
    }

    /** Values for {@code $SYS/broker/state/...}. */
    public Map<String, Object> sysValues() {
        return Map.of("state/health", HealthFlag.sysValue(problems()));
    }

    private List<String> problems() {
        String problem = state.problem();
        return problem == null ? List.of() : List.of(problem);
    }
}
