package io.sluice.broker.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * The values of one broker's {@link BrokerCounter}s. Many threads increment them at once, so
 * each is a {@link LongAdder}: an increment stays on its thread's own cell and only a read adds
 * the cells up. One instance per broker, so that brokers in one JVM (tests) do not mix counts.
 */
public final class BrokerMetrics {
    private final LongAdder[] counters = new LongAdder[BrokerCounter.values().length];

    public BrokerMetrics() {
        for (int i = 0; i < counters.length; i++) {
            counters[i] = new LongAdder();
        }
    }

    public void increment(BrokerCounter counter) {
        counters[counter.ordinal()].increment();
    }

    public void add(BrokerCounter counter, long delta) {
        counters[counter.ordinal()].add(delta);
    }

    public long get(BrokerCounter counter) {
        return counters[counter.ordinal()].sum();
    }
}
