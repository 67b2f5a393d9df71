package io.sluice.net.limits;

import io.netty.channel.Channel;
import io.sluice.net.RefusalLog;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admits or refuses each new connection of one listener against a limit shared by several
 * listeners (such as {@code mqtt.max_connections}), {@code listeners.<name>.max_connections} and
 * {@code listeners.<name>.max_conn_rate}. A refused connection is closed at once, before any TLS
 * handshake or protocol decoding is spent on it, reported to the front-end's {@link Refusals}
 * and logged to the {@link RefusalLog} with its address; it has sent nothing yet, so there is no client id
 * to log and no protocol answer to send.
 *
 * <p>Thread-safe: every event loop initialises channels concurrently.
 */
public final class ConnectionLimiter {
    /** Why a connection was refused; the front-end counts each in its own metrics. */
    public enum Reason {
        /** A limit on open connections was reached. */
        LIMIT,
        /** The listener's rate of new connections was exceeded. */
        RATE
    }

    /** What the front-end counts when a connection is refused. */
    @FunctionalInterface
    public interface Refusals {
        void refused(Reason reason);
    }

    private final String listener;
    private final AtomicInteger total;
    private final int maxTotal;
    private final int maxOpen;
    private final TokenBucket rate;
    private final Rate configuredRate;
    private final String sharedLimitKey;
    private final Refusals refusals;
    private final AtomicInteger open = new AtomicInteger();

    /**
     * @param listener the listener's name, for logs
     * @param total          open connections of all listeners, shared
     * @param maxTotal       limit on {@code total}, 0 = none
     * @param sharedLimitKey the configuration key of {@code maxTotal}, for logs
     * @param maxOpen        limit on this listener's connections, 0 = none
     * @param rate           new connections this listener accepts per period
     * @param refusals       told of every refusal
     */
    public ConnectionLimiter(String listener, AtomicInteger total, int maxTotal, String sharedLimitKey, int maxOpen,
                             Rate rate, Refusals refusals) {
        this.listener = listener;
        this.total = total;
        this.maxTotal = maxTotal;
        this.maxOpen = maxOpen;
        this.configuredRate = rate;
        this.rate = rate.isUnlimited() ? null : new TokenBucket(rate, System.nanoTime());
        this.sharedLimitKey = sharedLimitKey;
        this.refusals = refusals;
    }

    /** Admits {@code channel} (and releases its slot when it closes) or closes it; returns whether it was admitted. */
    public boolean admit(Channel channel) {
        int totalNow = total.incrementAndGet();
        int openNow = open.incrementAndGet();
        if (maxTotal > 0 && totalNow > maxTotal) {
            return refuse(channel, Reason.LIMIT, sharedLimitKey + " (" + maxTotal + ") reached");
        }
        if (maxOpen > 0 && openNow > maxOpen) {
            return refuse(channel, Reason.LIMIT,
                    "listeners." + listener + ".max_connections (" + maxOpen + ") reached");
        }
        if (rate != null && !takeRateToken()) {
            return refuse(channel, Reason.RATE,
                    "listeners." + listener + ".max_conn_rate (" + configuredRate + ") exceeded");
        }
        channel.closeFuture().addListener(f -> release());
        return true;
    }

    private void release() {
        open.decrementAndGet();
        total.decrementAndGet();
    }

    private boolean takeRateToken() {
        synchronized (rate) {
            return rate.tryConsume(1, System.nanoTime());
        }
    }

    private boolean refuse(Channel channel, Reason reason, String why) {
        release();
        refusals.refused(reason);
        RefusalLog.log("refused connection from {} on listener '{}' before it sent anything: {}", channel.remoteAddress(),
                listener, why);
        channel.close();
        return false;
    }

    /** Connections open on this listener. */
    public int open() {
        return open.get();
    }
}
