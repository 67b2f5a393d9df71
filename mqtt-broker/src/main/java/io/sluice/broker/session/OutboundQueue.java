package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The messages waiting for a session: offline, or online beyond its inflight window or its
 * connection's write buffer. Bounded in messages and in bytes; an offer beyond either bound is
 * refused so that the caller counts the drop. Not thread-safe: the owning {@link Session}'s
 * lock guards it.
 */
final class OutboundQueue {
    private final ArrayDeque<Delivery> deliveries = new ArrayDeque<>();
    private final int maxMessages;
    private final long maxBytes;
    private long bytes;

    /** {@code maxMessages} or {@code maxBytes} of 0 mean "no limit". */
    OutboundQueue(int maxMessages, long maxBytes) {
        this.maxMessages = maxMessages <= 0 ? Integer.MAX_VALUE : maxMessages;
        this.maxBytes = maxBytes <= 0 ? Long.MAX_VALUE : maxBytes;
    }

    /** Appends unless a bound would be exceeded; returns false when refused. */
    boolean offer(Delivery delivery) {
        int weight = delivery.message().weight();
        if (deliveries.size() >= maxMessages || bytes + weight > maxBytes) {
            return false;
        }
        deliveries.addLast(delivery);
        bytes += weight;
        return true;
    }

    Delivery peek() {
        return deliveries.peekFirst();
    }

    Delivery poll() {
        Delivery delivery = deliveries.pollFirst();
        if (delivery != null) {
            bytes -= delivery.message().weight();
        }
        return delivery;
    }

    /** Removes every delivery matching {@code filter}, handing each to {@code sink}; returns how many. */
    int removeIf(Predicate<Delivery> filter, Consumer<Delivery> sink) {
        int removed = 0;
        for (Iterator<Delivery> it = deliveries.iterator(); it.hasNext(); ) {
            Delivery delivery = it.next();
            if (filter.test(delivery)) {
                it.remove();
                bytes -= delivery.message().weight();
                sink.accept(delivery);
                removed++;
            }
        }
        return removed;
    }

    int size() {
        return deliveries.size();
    }

    long bytes() {
        return bytes;
    }

    boolean isEmpty() {
        return deliveries.isEmpty();
    }

    void clear() {
        deliveries.clear();
        bytes = 0;
    }
}
