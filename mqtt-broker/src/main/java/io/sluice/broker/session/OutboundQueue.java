package io.sluice.broker.session;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The deliveries waiting for a session: offline, or online beyond its inflight window or its
 * connection's write buffer. Bounded in messages and in bytes; an offer beyond either bound is
 * refused so that the caller counts the drop. While its session is offline its bytes also count
 * in the broker-wide {@link QueueBudget}; while online they do not, so that forwarding to
 * connected clients never touches that shared counter (a cache line every event loop would
 * write for every delivery). Not thread-safe: the owning {@link Session}'s lock guards it.
 */
final class OutboundQueue {
    /** Fewest queued messages, and bytes, that count as a backlog (twice what one drain interval adds). */
    static final int BACKLOG_MESSAGES = 128;
    static final long BACKLOG_BYTES = 64 * 1024;

    private final ArrayDeque<PendingDelivery> deliveries = new ArrayDeque<>();
    private final int maxMessages;
    private final long maxBytes;
    private final QueueBudget budget;
    private long bytes;
    /** Whether {@link #bytes} count in {@link #budget} now: while the session is offline. */
    private boolean budgeted = true;

    /** {@code maxMessages} or {@code maxBytes} of 0 mean "no limit"; queued bytes of an offline session count in {@code budget}. */
    OutboundQueue(int maxMessages, long maxBytes, QueueBudget budget) {
        this.maxMessages = maxMessages <= 0 ? Integer.MAX_VALUE : maxMessages;
        this.maxBytes = maxBytes <= 0 ? Long.MAX_VALUE : maxBytes;
        this.budget = budget;
    }

    /** Whether one more delivery of {@code weight} bytes fits within both bounds. */
    boolean fits(int weight) {
        return deliveries.size() < maxMessages && bytes + weight <= maxBytes;
    }

    /**
     * Whether half of either bound is taken, and at least {@value #BACKLOG_MESSAGES} messages or
     * {@value #BACKLOG_BYTES} bytes: a queue bounded below that is the operator's choice to drop
     * early, and holding publishers for a few queued messages would throttle every fan-in.
     */
    boolean isBacklogged() {
        int size = deliveries.size();
        return (size >= maxMessages / 2 && size >= BACKLOG_MESSAGES)
                || (bytes >= maxBytes / 2 && bytes >= BACKLOG_BYTES);
    }

    /** Appends; the caller checked {@link #fits}, or restores what was accepted before a restart. */
    void add(PendingDelivery delivery) {
        deliveries.addLast(delivery);
        bytes += delivery.weight();
        if (budgeted) {
            budget.add(delivery.weight());
        }
    }

    /** The session went offline ({@code true}) or online: its queued bytes start or stop counting in the budget. */
    void countInBudget(boolean offline) {
        if (offline != budgeted) {
            budgeted = offline;
            if (offline) {
                budget.add(bytes);
            } else {
                budget.release(bytes);
            }
        }
    }

    private void released(long weight) {
        bytes -= weight;
        if (budgeted) {
            budget.release(weight);
        }
    }

    PendingDelivery peek() {
        return deliveries.peekFirst();
    }

    PendingDelivery poll() {
        PendingDelivery delivery = deliveries.pollFirst();
        if (delivery != null) {
            released(delivery.weight());
        }
        return delivery;
    }

    /** Empties the queue (the session ended), giving its bytes back to the budget. */
    void clear() {
        deliveries.clear();
        released(bytes);
    }

    /** Removes every delivery matching {@code filter}, handing each to {@code sink}; returns how many. */
    int removeIf(Predicate<PendingDelivery> filter, Consumer<PendingDelivery> sink) {
        int removed = 0;
        for (Iterator<PendingDelivery> it = deliveries.iterator(); it.hasNext(); ) {
            PendingDelivery delivery = it.next();
            if (filter.test(delivery)) {
                it.remove();
                released(delivery.weight());
                sink.accept(delivery);
                removed++;
            }
        }
        return removed;
    }

    Iterable<PendingDelivery> all() {
        return deliveries;
    }

    int size() {
        return deliveries.size();
    }

    boolean isEmpty() {
        return deliveries.isEmpty();
    }
}
