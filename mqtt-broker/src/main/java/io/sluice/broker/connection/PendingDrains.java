package io.sluice.broker.connection;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FastThreadLocal;

import java.util.ArrayList;
import java.util.List;

/**
 * The connections of one event loop that were offered messages by work running on that same
 * loop (a publisher whose connection shares the loop, an acknowledgement, a retained message).
 * A task queued with {@code execute} would only run after the loop's whole read batch, so a
 * burst read in one go (thousands of PUBLISH packets) would fill the subscriber's session queue
 * long before its socket saw a byte. Instead they are drained every {@value #PACKETS_PER_DRAIN}
 * packets handled ({@link #drainNow}), written without a flush, and flushed once when the loop has
 * finished its batch ({@link #flushAll}, queued on the loop once per batch). Draining after every
 * packet would cost a drain per subscriber per message, three times the CPU of a fan-out; every
 * {@value #PACKETS_PER_DRAIN} packets a queue grows by at most that many messages between drains,
 * far below any sensible {@code max_mqueue_len}. One per event loop thread; never touched from
 * another thread.
 */
final class PendingDrains {
    private static final FastThreadLocal<PendingDrains> OF_LOOP = new FastThreadLocal<>() {
        @Override
        protected PendingDrains initialValue() {
            return new PendingDrains();
        }
    };

    /** Packets handled between drains inside one read batch. */
    static final int PACKETS_PER_DRAIN = 64;

    private final List<OutboundFlow> toDrain = new ArrayList<>();
    private final List<OutboundFlow> toFlush = new ArrayList<>();
    private final Runnable flushTask = this::flushAll;
    private boolean flushQueued;
    private int packetsSinceDrain;

    private PendingDrains() {
    }

    /** Called on {@code loop}'s own thread: {@code flow} has messages to send. */
    static void request(OutboundFlow flow, EventLoop loop) {
        PendingDrains pending = OF_LOOP.get();
        if (!flow.drainPending) {
            flow.drainPending = true;
            pending.toDrain.add(flow);
        }
        if (!pending.flushQueued) {
            pending.flushQueued = true;
            loop.execute(pending.flushTask);
        }
    }

    /**
     * After each packet handled: every {@value #PACKETS_PER_DRAIN} packets, drains without flushing
     * every connection of this loop fed since the last drain.
     */
    static void drainNow() {
        PendingDrains pending = OF_LOOP.getIfExists();
        if (pending != null && !pending.toDrain.isEmpty() && ++pending.packetsSinceDrain >= PACKETS_PER_DRAIN) {
            pending.drainAll();
        }
    }

    private void drainAll() {
        packetsSinceDrain = 0;
        // a drain may feed other connections of this loop (never this list's own entries twice: see the flag)
        for (int i = 0; i < toDrain.size(); i++) {
            OutboundFlow flow = toDrain.get(i);
            flow.drainPending = false;
            flow.drainUnflushed();
            if (!flow.flushPending) {
                flow.flushPending = true;
                toFlush.add(flow);
            }
        }
        toDrain.clear();
    }

    /** The loop's batch is over: drain what is left and flush every connection written to. */
    private void flushAll() {
        flushQueued = false;
        packetsSinceDrain = 0;
        for (int i = 0; i < toDrain.size(); i++) {
            OutboundFlow flow = toDrain.get(i);
            flow.drainPending = false;
            if (!flow.flushPending) {
                flow.flushPending = true;
                toFlush.add(flow);
            }
        }
        toDrain.clear();
        for (int i = 0; i < toFlush.size(); i++) {
            OutboundFlow flow = toFlush.get(i);
            flow.flushPending = false;
            flow.drain();
        }
        toFlush.clear();
    }
}
