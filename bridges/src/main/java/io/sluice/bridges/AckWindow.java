package io.sluice.bridges;

/**
 * Which sent messages a connection still owes an acknowledgement for, so that the backlog's start
 * moves only over a contiguous acknowledged prefix even when acknowledgements arrive out of order
 * (QoS 1 and QoS 2 mixed, Kafka partitions). Offsets from {@link #base()} to {@link #next()} have
 * been sent; each is pending or acknowledged. A ring of states indexed by offset keeps it
 * allocation-free; a connection never has more than {@link #CAPACITY} offsets between base and next.
 *
 * <p>Thread-safe by its monitor: the bridge thread sends, the remote's threads acknowledge.
 */
final class AckWindow {
    /** The most offsets between base and next, at least the largest Receive Maximum (65,535). */
    static final int CAPACITY = 1 << 17;
    private static final byte NONE = 0;
    private static final byte PENDING = 1;
    private static final byte DONE = 2;

    private final byte[] states = new byte[CAPACITY];
    private long base;
    private long next;
    private int pending;

    /** A new connection: nothing in flight, sending starts again at {@code from}. */
    synchronized void reset(long from) {
        for (long o = base; o < next; o++) {
            states[index(o)] = NONE;
        }
        base = from;
        next = from;
        pending = 0;
    }

    /** How many more messages may be sent now under {@code window}. */
    synchronized int room(int window) {
        return (int) Math.max(0, Math.min(window - pending, CAPACITY - (next - base)));
    }

    /** Marks {@code offset}, which must be {@link #next()}, as sent. */
    synchronized void sent(long offset) {
        if (offset != next) {
            throw new IllegalStateException("sent offset " + offset + " but the next to send is " + next);
        }
        states[index(offset)] = PENDING;
        next++;
        pending++;
    }

    /** The remote has {@code offset}; false when it was not pending (then nothing changes). */
    synchronized boolean acknowledge(long offset) {
        if (offset < base || offset >= next || states[index(offset)] != PENDING) {
            return false;
        }
        states[index(offset)] = DONE;
        pending--;
        while (base < next && states[index(base)] == DONE) {
            states[index(base)] = NONE;
            base++;
        }
        return true;
    }

    /** Messages below {@code offset} left the backlog (dropped as the oldest): forget them. */
    synchronized void skipTo(long offset) {
        while (base < offset && base < next) {
            if (states[index(base)] == PENDING) {
                pending--;
            }
            states[index(base)] = NONE;
            base++;
        }
        if (base < offset) {
            base = offset;
            next = offset;
        }
    }

    /** Every offset below this is acknowledged. */
    synchronized long base() {
        return base;
    }

    /** The next offset to send. */
    synchronized long next() {
        return next;
    }

    /** Sent and not yet acknowledged. */
    synchronized int pending() {
        return pending;
    }

    private static int index(long offset) {
        return (int) (offset & (CAPACITY - 1));
    }
}
