package io.sluice.bridges;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The wait before each reconnection attempt: exponential from half a second, doubling per failed
 * attempt up to {@code backoff_max}, with "equal jitter" (a random point in the upper half of the
 * step), so bridges of many gateways that lost the same cloud do not all come back in the same
 * millisecond. A connection that stayed up for a while resets it. Bridge thread only.
 */
final class Backoff {
    static final long INITIAL_MILLIS = 500;

    private final long maxMillis;
    private long step = INITIAL_MILLIS;

    Backoff(long maxMillis) {
        this.maxMillis = maxMillis;
    }

    /** The next wait in milliseconds; the one after is twice as long, up to the maximum. */
    long next() {
        long current = Math.min(step, maxMillis);
        step = Math.min(maxMillis, step * 2);
        long half = current / 2;
        return half + ThreadLocalRandom.current().nextLong(current - half + 1);
    }

    void reset() {
        step = INITIAL_MILLIS;
    }
}
