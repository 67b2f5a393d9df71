package io.sluice.broker.limits;

import io.netty.channel.Channel;
import io.sluice.broker.connection.RefusalLog;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admits or refuses each new connection of one listener against {@code mqtt.max_connections}
 * (all listeners together), {@code listeners.<name>.max_connections} and
 * {@code listeners.<name>.max_conn_rate}. A refused connection is closed at once, before any TLS
 * handshake or MQTT decoding is spent on it, counted and logged (rate-limited) with its address;
 * it has sent no CONNECT, so there is no client id to log and no CONNACK to send.
 *
 * <p>Thread-safe: every event loop initialises channels concurrently.
 */
public final class ConnectionLimiter {
    private final String listener;
    private final AtomicInteger total;
    private final int maxTotal;
    private final int maxOpen;
    private final TokenBucket rate;
    private final Rate configuredRate;
    private final BrokerMetrics metrics;
    private final AtomicInteger open = new AtomicInteger();

    /**
     * @param listener the listener's name, for logs
     * @param total    open connections of all listeners, shared
     * @param maxTotal limit on {@code total}, 0 = none
     * @param maxOpen  limit on this listener's connections, 0 = none
     * @param rate     new connections this listener accepts per period
     */
    public ConnectionLimiter(String listener, AtomicInteger total, int maxTotal, int maxOpen, Rate rate,
                             BrokerMetrics metrics) {
        this.listener = listener;
        this.total = total;
        this.maxTotal = maxTotal;
        this.maxOpen = maxOpen;
        this.configuredRate = rate;
        this.rate = rate.isUnlimited() ? null : new TokenBucket(rate, System.nanoTime());
        this.metrics = metrics;
    }

    /** Admits {@code channel} (and releases its slot when it closes) or closes it; returns whether it was admitted. */
    public boolean admit(Channel channel) {
        int totalNow = total.incrementAndGet();
        int openNow = open.incrementAndGet();
        if (maxTotal > 0 && totalNow > maxTotal) {
            return refuse(channel, BrokerCounter.CONNECTIONS_REFUSED_LIMIT,
                    "mqtt.max_connections (" + maxTotal + ") reached");
        }
        if (maxOpen > 0 && openNow > maxOpen) {
            return refuse(channel, BrokerCounter.CONNECTIONS_REFUSED_LIMIT,
                    "listeners." + listener + ".max_connections (" + maxOpen + ") reached");
        }
        if (rate != null && !takeRateToken()) {
            return refuse(channel, BrokerCounter.CONNECTIONS_REFUSED_RATE,
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

    private boolean refuse(Channel channel, BrokerCounter counter, String reason) {
        release();
        metrics.increment(counter);
        RefusalLog.log("refused connection from {} on listener '{}' before CONNECT: {}", channel.remoteAddress(),
                listener, reason);
        channel.close();
        return false;
    }

    /** Connections open on this listener. */
    public int open() {
        return open.get();
    }
}
