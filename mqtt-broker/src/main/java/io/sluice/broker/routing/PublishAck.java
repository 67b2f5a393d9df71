package io.sluice.broker.routing;

import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.storage.Receipt;

/**
 * The acknowledgement of one inbound QoS 1/2 PUBLISH, held back until everything that must be
 * durable first is: the broker-state journal, and any capture tap that promises durability.
 * Each of those calls {@link #hold()} and later {@link #release()}, or {@link #refused()} when it
 * could not store its copy; the handler that created it holds it while routing and releases it
 * after. The last release makes it {@link #ready()}, and {@link #stored()} then says whether every
 * holder stored its copy. Thread-safe: releases arrive from journal and capture threads. It is its
 * own release {@link Runnable} and {@link Receipt}, so handing it to a capture allocates nothing.
 */
public abstract class PublishAck implements Receipt {
    private final AtomicInteger holds = new AtomicInteger(1);
    private volatile boolean refused;

    /** One more thing must confirm before the acknowledgement may go out. */
    public final void hold() {
        holds.incrementAndGet();
    }

    /** One thing confirmed; the last confirmation makes the acknowledgement ready. */
    public final void release() {
        if (holds.decrementAndGet() == 0) {
            ready();
        }
    }

    /** One thing could not store its copy: the acknowledgement must not say it was stored. Then as {@link #release()}. */
    @Override
    public final void refused() {
        refused = true;
        release();
    }

    /** The same as {@link #release()}. */
    @Override
    public final void run() {
        release();
    }

    /** Whether every holder stored its copy; read it in {@link #ready()}. */
    public final boolean stored() {
        return !refused;
    }

    /** Called once, on whichever thread released last. Must not block. */
    protected abstract void ready();
}
