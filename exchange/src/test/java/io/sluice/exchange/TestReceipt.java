package io.sluice.exchange;

import io.sluice.storage.Receipt;
import java.util.concurrent.atomic.AtomicInteger;

/** A receipt that counts how it was settled: run (stored) or refused. */
final class TestReceipt implements Receipt {
    final AtomicInteger stored = new AtomicInteger();
    final AtomicInteger refused = new AtomicInteger();

    @Override
    public void run() {
        stored.incrementAndGet();
    }

    @Override
    public void refused() {
        refused.incrementAndGet();
    }

    int settled() {
        return stored.get() + refused.get();
    }
}
