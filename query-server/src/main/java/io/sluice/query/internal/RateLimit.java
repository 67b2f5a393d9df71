package io.sluice.query.internal;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@code limit_frequency} as NanoMQ defines it: at most N queries per 5 s window. A window opens
 * with the first request after the previous one closed; requests over N in it are refused until
 * it closes. Refused requests do not count. 0 means unlimited.
 *
 * <p>Owned by the query server's thread.
 */
public final class RateLimit {

    /** The window's length. */
    public static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final int limit;
    private final LongSupplier nanoClock;
    private long windowStart;
    private int used;
    private boolean open;

    /** @param limit queries per window, 0 for unlimited; @param nanoClock {@link System#nanoTime} or a test's clock */
    public RateLimit(int limit, LongSupplier nanoClock) {
        this.limit = limit;
        this.nanoClock = nanoClock;
    }

    /** Takes one query from the window; false when the window is used up. */
    public boolean tryAcquire() {
        if (limit == 0) {
            return true;
        }
        long now = nanoClock.getAsLong();
        if (!open || now - windowStart >= WINDOW_NANOS) {
            open = true;
            windowStart = now;
            used = 0;
        }
        if (used >= limit) {
            return false;
        }
        used++;
        return true;
    }

    /** Milliseconds until the current window closes (at least 1), for the refusal's reason. */
    public long millisUntilReset() {
        long left = WINDOW_NANOS - (nanoClock.getAsLong() - windowStart);
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(left));
    }

    /** The configured {@code limit_frequency}. */
    public int limit() {
        return limit;
    }
}
