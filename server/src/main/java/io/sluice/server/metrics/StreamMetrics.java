package io.sluice.server.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.streams.Stream;
import io.sluice.streams.StreamCounter;
import io.sluice.streams.Streams;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The streams' numbers, read when asked: for Prometheus every {@link StreamCounter} as
 * {@code sluice_<counter>_total{stream="<name>"}} and the gauge {@code sluice_stream_records} (records
 * readable now, all partitions); for {@code $SYS} the same under {@code streams/<name>/<metric>}.
 * Thread-safe; nothing is kept between reads.
 */
public final class StreamMetrics implements MultiCollector {
    private final Streams streams;

    public StreamMetrics(Streams streams) {
        this.streams = streams;
    }

    @Override
    public MetricSnapshots collect() {
        List<MetricSnapshot> snapshots = new ArrayList<>();
        java.util.Collection<Stream> all = streams.all();
        for (StreamCounter counter : StreamCounter.values()) {
            CounterSnapshot.Builder builder = CounterSnapshot.builder()
                    .name("sluice_" + counter.metricName().replaceFirst("_total$", "")).help(counter.label());
            for (Stream stream : all) {
                builder.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .labels(Labels.of("stream", stream.name())).value(stream.counter(counter)).build());
            }
            snapshots.add(builder.build());
        }
        GaugeSnapshot.Builder records = GaugeSnapshot.builder().name("sluice_stream_records")
                .help("records readable now, all partitions");
        for (Stream stream : all) {
            records.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(Labels.of("stream", stream.name()))
                    .value(readable(stream)).build());
        }
        snapshots.add(records.build());
        return new MetricSnapshots(snapshots);
    }

    private static long readable(Stream stream) {
        long records = 0;
        for (int p = 0; p < stream.partitions(); p++) {
            records += stream.endOffset(p) - stream.startOffset(p);
        }
        return records;
    }

    /** Values for {@code $SYS/broker/streams/<name>/...}. */
    public Map<String, Object> sysValues() {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Stream stream : streams.all()) {
            String prefix = "streams/" + stream.name() + "/";
            for (StreamCounter counter : StreamCounter.values()) {
                values.put(prefix + counter.metricName().replaceFirst("_total$", "").replaceFirst("^stream_", ""),
                        stream.counter(counter));
            }
            values.put(prefix + "records", readable(stream));
        }
        return values;
    }
}
