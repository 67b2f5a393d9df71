package io.sluice.bridges;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/** The counters of one bridge; any thread increments, any thread reads. */
public final class BridgeCounters {
    private static final BridgeCounter[] ALL = BridgeCounter.values();
    private final AtomicLongArray values = new AtomicLongArray(ALL.length);

    public void increment(BridgeCounter counter) {
        values.incrementAndGet(counter.ordinal());
    }

    public void add(BridgeCounter counter, long delta) {
        if (delta != 0) {
            values.addAndGet(counter.ordinal(), delta);
        }
    }

    public long get(BridgeCounter counter) {
        return values.get(counter.ordinal());
    }

    /** Every counter by its metric name, in declaration order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> snapshot = new LinkedHashMap<>();
        for (BridgeCounter counter : ALL) {
            snapshot.put(counter.metricName(), get(counter));
        }
        return snapshot;
    }
}
