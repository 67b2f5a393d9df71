package io.sluice.broker.connection;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * The CONNECT timeout, then the keepalive: calls {@link Connection#readTimedOut} when nothing has
 * been read for the current timeout. Cheaper than a Netty {@code IdleStateHandler} per phase: one
 * handler-free object, one scheduled task per connection that reschedules itself instead of being
 * cancelled on every read, and a timeout that changes at CONNACK without touching the pipeline
 * (a connection storm pays for this on every connection). Owned by the connection's event loop.
 */
final class ReadDeadline implements Runnable {
    private final Connection connection;
    private ChannelHandlerContext ctx;
    private long timeoutNanos;
    private long lastReadNanos;
    private ScheduledFuture<?> task;

    ReadDeadline(Connection connection) {
        this.connection = connection;
    }

    /** Starts counting from now; once (the channel becoming active, or the handler added to an active one). */
    void start(ChannelHandlerContext context, long timeoutMillis) {
        if (ctx != null) {
            return;
        }
        ctx = context;
        lastReadNanos = System.nanoTime();
        timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        schedule(timeoutNanos);
    }

    /** Something was read (once per read batch). */
    void read() {
        lastReadNanos = System.nanoTime();
    }

    /** A new timeout from now (the keepalive after CONNACK); 0 means none. */
    void change(long timeoutMillis) {
        long previous = timeoutNanos;
        timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        lastReadNanos = System.nanoTime();
        if (timeoutNanos == 0) {
            stop();
        } else if (task == null || timeoutNanos < previous) {
            stop();
            schedule(timeoutNanos); // a longer timeout is picked up when the pending check runs
        }
    }

    void stop() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }

    private void schedule(long delayNanos) {
        task = ctx.executor().schedule(this, delayNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void run() {
        task = null;
        if (timeoutNanos == 0 || !ctx.channel().isOpen()) {
            return;
        }
        long now = System.nanoTime();
        long silent = now - lastReadNanos;
        if (silent >= timeoutNanos) {
            connection.readTimedOut();
            schedule(timeoutNanos); // a client whose reads we paused is checked again later
        } else {
            schedule(timeoutNanos - silent);
        }
    }
}
