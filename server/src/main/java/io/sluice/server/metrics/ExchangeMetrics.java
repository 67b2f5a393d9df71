package io.sluice.server.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.exchange.Exchange;
import io.sluice.exchange.ExchangeCounter;
import io.sluice.exchange.ExchangeStatus;
import io.sluice.exchange.Exchanges;
import io.sluice.parquet.StoreCounter;
import io.sluice.query.QueryCounter;
import io.sluice.query.QueryServers;
import io.sluice.ringbus.RingCounter;
import io.sluice.stream.PluginCounter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The capture pipeline's numbers, read when asked: for Prometheus every ring, store, exchange,
 * plugin and query counter as {@code sluice_exchange_<counter>_total{exchange="<name>"}} plus gauges of files,
 * bytes, pending and spilled batches, rows filling and ring backlog; for {@code $SYS} the same
 * values under {@code exchanges/<name>/<metric>}, and the exchange's health: the gauge
 * {@code sluice_exchange_healthy} and {@code exchanges/<name>/health} ({@code ok}, or what keeps it
 * from capturing). Thread-safe; nothing is kept between reads.
 */
public final class ExchangeMetrics implements MultiCollector {
    private final Exchanges exchanges;
    private final QueryServers queries;

    public ExchangeMetrics(Exchanges exchanges, QueryServers queries) {
        this.exchanges = exchanges;
        this.queries = queries;
    }

    @Override
    public MetricSnapshots collect() {
        List<MetricSnapshot> snapshots = new ArrayList<>();
        for (RingCounter counter : RingCounter.values()) {
            snapshots.add(counter(counter.metricName(), counter.help(), e -> e.counter(counter)));
        }
        for (StoreCounter counter : StoreCounter.values()) {
            snapshots.add(counter(counter.metricName(), counter.help(), e -> e.counter(counter)));
        }
        for (ExchangeCounter counter : ExchangeCounter.values()) {
            snapshots.add(counter(counter.metricName(), counter.help(), e -> e.counter(counter)));
        }
        snapshots.addAll(pluginCounters());
        for (QueryCounter counter : QueryCounter.values()) {
            snapshots.add(counter(counter.metricName(), counter.help(), e -> queries.get(e.name()).counter(counter)));
        }
        List<ExchangeStatus> statuses = exchanges.statuses();
        snapshots.add(gauge("files", "Parquet files published and kept", statuses, ExchangeStatus::files));
        snapshots.add(gauge("file_bytes", "bytes in those files", statuses, ExchangeStatus::fileBytes));
        snapshots.add(gauge("pending_batches", "batches handed up and not yet in a file", statuses,
                ExchangeStatus::pendingBatches));
        snapshots.add(gauge("spilled_batches", "of those, batches spilled to local disk", statuses,
                ExchangeStatus::spilledBatches));
        snapshots.add(gauge("active_rows", "rows in the batch the ring is filling", statuses,
                ExchangeStatus::activeRows));
        snapshots.add(gauge("ring_backlog", "messages offered and not yet taken by the ring thread", statuses,
                ExchangeStatus::ringBacklog));
        snapshots.add(healthy());
        return new MetricSnapshots(snapshots);
    }

    /** 1 while the exchange captures, 0 while its writer is dead or its write-ahead log offline or unwritable. */
    private GaugeSnapshot healthy() {
        GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name("sluice_exchange_healthy")
                .help("1 while the exchange captures; 0 while its Parquet writer is dead or its write-ahead log is offline or "
                        + "unwritable (see /health for why)");
        for (Exchange exchange : exchanges.all()) {
            builder.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                    .labels(Labels.of("exchange", exchange.name())).value(HealthFlag.gaugeValue(exchange.problems())).build());
        }
        return builder.build();
    }

    /** Each plugin's own counters, for the exchanges that use the plugin. */
    private List<CounterSnapshot> pluginCounters() {
        Map<String, CounterSnapshot.Builder> byName = new LinkedHashMap<>();
        for (Exchange exchange : exchanges.all()) {
            for (PluginCounter counter : exchange.codec().counters().keySet()) {
                byName.computeIfAbsent(counter.metricName(), name -> CounterSnapshot.builder()
                        .name("sluice_exchange_" + name.replaceFirst("_total$", "")).help(counter.help()))
                        .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                                .labels(Labels.of("exchange", exchange.name())).value(exchange.counter(counter))
                                .build());
            }
        }
        return byName.values().stream().map(CounterSnapshot.Builder::build).toList();
    }

    private CounterSnapshot counter(String metricName, String help, ToLongFunction<Exchange> value) {
        CounterSnapshot.Builder builder = CounterSnapshot.builder()
                .name("sluice_exchange_" + metricName.replaceFirst("_total$", "")).help(help);
        for (Exchange exchange : exchanges.all()) {
            builder.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                    .labels(Labels.of("exchange", exchange.name())).value(value.applyAsLong(exchange)).build());
        }
        return builder.build();
    }

    private static GaugeSnapshot gauge(String name, String help, List<ExchangeStatus> statuses,
                                       ToDoubleFunction<ExchangeStatus> value) {
        GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name("sluice_exchange_" + name).help(help);
        for (ExchangeStatus status : statuses) {
            builder.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                    .labels(Labels.of("exchange", status.name())).value(value.applyAsDouble(status)).build());
        }
        return builder.build();
    }

    /** Values for {@code $SYS/broker/exchanges/<name>/...}. */
    public Map<String, Object> sysValues() {
        Map<String, Object> values = new LinkedHashMap<>();
        for (ExchangeStatus status : exchanges.statuses()) {
            String prefix = "exchanges/" + status.name() + "/";
            status.counters().forEach((name, value) -> values.put(prefix + name.replaceFirst("_total$", ""), value));
            values.put(prefix + "files", status.files());
            values.put(prefix + "file_bytes", status.fileBytes());
            values.put(prefix + "pending_batches", status.pendingBatches());
            values.put(prefix + "spilled_batches", status.spilledBatches());
            values.put(prefix + "ring_backlog", status.ringBacklog());
            values.put(prefix + "health", HealthFlag.sysValue(exchanges.get(status.name()).problems()));
            queries.get(status.name()).counters().forEach((name, value) ->
                    values.put(prefix + name.replaceFirst("_total$", ""), value));
        }
        return values;
    }
}
