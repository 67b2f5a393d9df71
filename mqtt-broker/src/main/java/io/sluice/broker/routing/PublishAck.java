package io.sluice.broker.routing;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The acknowledgement of one inbound QoS 1/2 PUBLISH, held back until everything that must be
 * durable first is: the broker-state journal, and any capture tap that promises durability.
 * Each of those calls {@link #hold()} and later {@link #release()}; the handler that created it
 * holds it while routing and releases it after. The last release makes it {@link #ready()}.
 * Thread-safe: releases arrive from journal and capture threads. It is its own release
 * {@link Runnable}, so handing it to a capture receipt allocates nothing.
 */
public abstract class PublishAck implements Runnable {
    private final AtomicInteger holds = new AtomicInteger(1);

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

    /** The same as {@link #release()}. */
    @Override
    public final void run() {
        release();
    }

    /** Called once, on whichever thread released last. Must not block. */
    protected abstract void ready();
}
