package io.sluice.exchange.internal;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Something on disk that queries may be reading (a published file, a spill file): it is deleted
 * only once it is retired (out of the view) and no query pins it. Pins are taken under the
 * custody lock while the thing is in the view; retiring happens after it left the view, so no pin
 * can come after the last unpin. Whichever of retire and the last unpin comes second deletes,
 * exactly once.
 */
public abstract class Pinned {

    private final AtomicInteger pins = new AtomicInteger();
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean retired;

    /** A query will read this; under the custody lock. */
    void pin() {
        pins.incrementAndGet();
    }

    /** Whether a query reads this now; a pin comes only while this is in the view. */
    boolean isPinned() {
        return pins.get() > 0;
    }

    /** A query is done with this; any thread. */
    public void unpin() {
        if (pins.decrementAndGet() == 0 && retired) {
            release();
        }
    }

    /** This left the view; release it once unpinned; any thread. */
    void retire() {
        retired = true;
        if (pins.get() == 0) {
            release();
        }
    }

    private void release() {
        if (released.compareAndSet(false, true)) {
            onRelease();
        }
    }

    /** Deletes what this stands for; runs once, on the thread that released it. */
    abstract void onRelease();
}
