package io.sluice.net.limits;

/**
 * A token bucket for one {@link Rate}: it holds at most one period's amount (the burst) and
 * refills continuously at the rate. {@link #consume} may drive it below zero and says how long
 * the caller must pause until it is back at zero, so a client that sent more than it may is
 * slowed for exactly as long as it overspent. Time is passed in, so tests need no clock.
 *
 * <p>Not thread-safe: a per-connection bucket belongs to the connection's event loop; callers
 * that share one (a listener's connection rate) synchronise on it.
 */
public final class TokenBucket {
    private final double capacity;
    private final double periodNanos;
    private double tokens;
    private long lastNanos;

    public TokenBucket(Rate rate, long nowNanos) {
        if (rate.isUnlimited()) {
            throw new IllegalArgumentException("an unlimited rate needs no bucket");
        }
        this.capacity = rate.amount();
        this.periodNanos = rate.periodNanos();
        this.tokens = capacity;
        this.lastNanos = nowNanos;
    }

    private void refill(long nowNanos) {
        long elapsed = nowNanos - lastNanos;
        if (elapsed > 0) {
            tokens = Math.min(capacity, tokens + elapsed * capacity / periodNanos);
            lastNanos = nowNanos;
        }
    }

    /** Takes {@code n} tokens if the bucket has them; otherwise takes none and returns false. */
    public boolean tryConsume(double n, long nowNanos) {
        refill(nowNanos);
        if (tokens < n) {
            return false;
        }
        tokens -= n;
        return true;
    }

    /**
     * Takes {@code n} tokens, going into debt if need be; returns the nanoseconds until the debt
     * is repaid (0 if there is none).
     */
    public long consume(double n, long nowNanos) {
        refill(nowNanos);
        tokens -= n;
        return tokens >= 0 ? 0 : (long) Math.ceil(-tokens * periodNanos / capacity);
    }

    /** Tokens available now (negative while in debt). */
    public double available(long nowNanos) {
        refill(nowNanos);
        return tokens;
    }
}
