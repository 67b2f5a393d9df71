package io.sluice.storage;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The counters of one log or shard, indexed by {@link StorageCounter}; safe to increment and read
 * from any thread. Writers add once per batch or event, never per record.
 */
public final class StorageCounters {
    private final AtomicLongArray values = new AtomicLongArray(StorageCounter.values().length);

    public void add(StorageCounter counter, long delta) {
        values.getAndAdd(counter.ordinal(), delta);
    }

    public void increment(StorageCounter counter) {
        values.getAndIncrement(counter.ordinal());
    }

    public long get(StorageCounter counter) {
        return values.get(counter.ordinal());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (StorageCounter counter : StorageCounter.values()) {
            long value = get(counter);
            if (value != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(counter.metricName()).append('=').append(value);
            }
        }
        return sb.append('}').toString();
    }
}
