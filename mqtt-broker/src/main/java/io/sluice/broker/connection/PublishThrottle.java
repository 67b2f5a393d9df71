package io.sluice.broker.connection;

import io.sluice.net.limits.Rate;
import io.sluice.net.limits.TokenBucket;
/**
 * One client's publish rate limits, {@code mqtt.messages_rate} and {@code mqtt.bytes_rate}: every
 * inbound PUBLISH is charged to both buckets, and a client over either is paused (its reads
 * stop) until it is back within its rate. It is never disconnected for it: TCP flow control
 * pushes back on the client instead.
 *
 * <p>Owned by the connection's event loop.
 */
public final class PublishThrottle {
    private final TokenBucket messages;
    private final TokenBucket bytes;

    private PublishThrottle(TokenBucket messages, TokenBucket bytes) {
        this.messages = messages;
        this.bytes = bytes;
    }

    /** A throttle for these rates, or null if both are unlimited (the common case costs nothing). */
    public static PublishThrottle of(Rate messagesRate, Rate bytesRate, long nowNanos) {
        if (messagesRate.isUnlimited() && bytesRate.isUnlimited()) {
            return null;
        }
        return new PublishThrottle(messagesRate.isUnlimited() ? null : new TokenBucket(messagesRate, nowNanos),
                bytesRate.isUnlimited() ? null : new TokenBucket(bytesRate, nowNanos));
    }

    /** Charges one PUBLISH of {@code payloadBytes}; returns how long reads must pause, in nanoseconds (0 = none). */
    public long charge(int payloadBytes, long nowNanos) {
        long pause = messages == null ? 0 : messages.consume(1, nowNanos);
        if (bytes != null) {
            pause = Math.max(pause, bytes.consume(payloadBytes, nowNanos));
        }
        return pause;
    }

    /** How much longer reads must stay paused, in nanoseconds (0 = the client is within its rates again). */
    public long pauseNanos(long nowNanos) {
        long pause = messages == null ? 0 : messages.consume(0, nowNanos);
        return bytes == null ? pause : Math.max(pause, bytes.consume(0, nowNanos));
    }
}
