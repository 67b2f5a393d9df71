package io.sluice.broker.session;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes queued in all offline sessions together, against {@code mqtt.max_queued_bytes}: each
 * session's queue is bounded by {@code max_mqueue_len} and {@code max_mqueue_bytes}, but without
 * this bound a client connecting with ever new client ids could fill the broker's memory with
 * offline sessions. Shared by every session of a broker; thread-safe.
 */
public final class QueueBudget {
    /** No bound. */
    public static final QueueBudget UNLIMITED = new QueueBudget(0);

    private final long limit;
    private final AtomicLong queued = new AtomicLong();

    /** {@code limit} of 0 means no bound (the total is still counted). */
    public QueueBudget(long limit) {
        this.limit = limit <= 0 ? Long.MAX_VALUE : limit;
    }

    /** Whether {@code weight} more bytes fit. Not a reservation: concurrent offers may overshoot by one message each. */
    boolean hasRoom(int weight) {
        return queued.get() + weight <= limit;
    }

    void add(long bytes) {
        queued.addAndGet(bytes);
    }

    void release(long bytes) {
        queued.addAndGet(-bytes);
    }

    /** Bytes queued in all offline sessions now. */
    public long queuedBytes() {
        return queued.get();
    }
}
