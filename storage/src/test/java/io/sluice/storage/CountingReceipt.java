package io.sluice.storage;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A receipt that counts how it was settled: run (stored) or refused; in this module's test jar for
 * the exchange and broker-state tests.
 */
public final class CountingReceipt implements Receipt {
    public final AtomicInteger stored = new AtomicInteger();
    public final AtomicInteger refused = new AtomicInteger();

    @Override
    public void run() {
        stored.incrementAndGet();
    }

    @Override
    public void refused() {
        refused.incrementAndGet();
    }

    public int settled() {
        return stored.get() + refused.get();
    }
}
