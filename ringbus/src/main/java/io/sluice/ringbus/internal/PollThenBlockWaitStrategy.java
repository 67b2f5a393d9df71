package io.sluice.ringbus.internal;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How the ring thread waits for offers: it sleeps and looks again a few times, and only then
 * blocks with a timeout (the flush tick). Under load the next offers arrive while it sleeps, so
 * offering threads never signal anyone: their side of the handshake is one volatile read of a flag
 * that stays false. Only when it has really gone to sleep does an offer pay for waking it.
 * Spinning instead would take a core that the broker's event loops need.
 *
 * <p>How long it sleeps follows the rate. Every wake-up costs a few microseconds of system time
 * and preempts an event loop on a busy machine, so once a wake-up finds at least
 * {@value #BUSY_EVENTS} offers the ring thread sleeps {@value #BUSY_SLEEP_MICROS} µs between looks
 * (at 500,000 offers a second it takes them 500 at a time; the smallest ring holds 8 ms of that).
 * Below that rate it sleeps 50 µs, doubling to 400 µs, so a lone QoS 1 message whose PUBACK waits
 * for the write-ahead log is not held back a millisecond.
 *
 * <p>Disruptor's {@code LiteTimeoutBlockingWaitStrategy} makes every publish an atomic
 * read-modify-write of a flag shared by all producers and the consumer; on the broker's event
 * loops that cache line moved between cores on every captured message.
 *
 * <p>An offer claims its slot before it fills and publishes it, so the cursor can pass a slot that
 * is not yet readable; the Disruptor's barrier then returns short, and its processor asks again at
 * once, for ever. On one core the offering thread was preempted inside that window, by this very
 * thread, and cannot publish until this thread lets go of the core: so a repeated wait for the same
 * sequence spins {@value #STALL_SPINS} times (another core publishes within that), then yields,
 * then sleeps.
 *
 * <p>No lost wake-up: the ring thread raises {@code signalNeeded} and then reads the cursor again
 * before it waits; a producer advances the cursor and then reads {@code signalNeeded}. Both are
 * volatile, so at least one of them sees the other's write. Even a missed signal would cost at
 * most one timeout tick, never a hang.
 *
 * <p>One instance per ring: {@code waitFor} runs on the ring thread only.
 */
public final class PollThenBlockWaitStrategy implements WaitStrategy {
    static final int BUSY_EVENTS = 16;
    static final long BUSY_SLEEP_MICROS = 1000;
    static final long BUSY_SLEEP_NANOS = TimeUnit.MICROSECONDS.toNanos(BUSY_SLEEP_MICROS);
    static final long FIRST_SLEEP_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    private static final int POLLS = 4;
    static final int STALL_SPINS = 32;
    static final int STALL_YIELDS = 4;

    private final Object mutex = new Object();
    private final long timeoutNanos;
    private volatile boolean signalNeeded;
    /** The sequence the previous wait was for: how many offers the last wake-up found. */
    private long lastWaitedFor = -1;
    /** The sequence the previous wait returned for, and how many waits in a row asked for it again. */
    private long lastReturnedFor = -1;
    private int stalls;

    /** @param timeoutNanos how long the ring thread sleeps before its timeout tick */
    public PollThenBlockWaitStrategy(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public long waitFor(long sequence, Sequence cursor, Sequence dependentSequence, SequenceBarrier barrier)
            throws AlertException, InterruptedException, TimeoutException {
        if (sequence == lastReturnedFor) {
            stall();
        } else {
            stalls = 0;
        }
        if (cursor.get() < sequence && !poll(sequence, cursor, barrier, firstSleep(sequence))) {
            block(sequence, cursor, barrier);
        }
        long available;
        while ((available = dependentSequence.get()) < sequence) {
            barrier.checkAlert();
            Thread.onSpinWait();
        }
        lastReturnedFor = sequence;
        return available;
    }

    /**
     * The previous wait returned for this sequence and the barrier found its slot claimed but not
     * published: spin a little, then give the core to whoever holds the claim.
     */
    private void stall() {
        int n = ++stalls;
        if (n <= STALL_SPINS) {
            Thread.onSpinWait();
        } else if (n <= STALL_SPINS + STALL_YIELDS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(FIRST_SLEEP_NANOS);
        }
    }

    /** The first sleep of a wait for {@code sequence}: long when the last wake-up found many offers. */
    long firstSleep(long sequence) {
        boolean busy = sequence - lastWaitedFor >= BUSY_EVENTS;
        lastWaitedFor = sequence;
        return busy ? BUSY_SLEEP_NANOS : FIRST_SLEEP_NANOS;
    }

    /** True once the cursor reached {@code sequence} within the polls. */
    private static boolean poll(long sequence, Sequence cursor, SequenceBarrier barrier, long firstSleep) throws AlertException {
        long sleep = firstSleep;
        for (int i = 0; i < POLLS; i++) {
            barrier.checkAlert();
            LockSupport.parkNanos(sleep);
            if (cursor.get() >= sequence) {
                return true;
            }
            sleep = Math.min(sleep << 1, BUSY_SLEEP_NANOS);
        }
        return false;
    }

    private void block(long sequence, Sequence cursor, SequenceBarrier barrier)
            throws AlertException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (mutex) {
            while (cursor.get() < sequence) {
                barrier.checkAlert();
                signalNeeded = true;
                if (cursor.get() >= sequence) {
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    signalNeeded = false;
                    throw TimeoutException.INSTANCE;
                }
                TimeUnit.NANOSECONDS.timedWait(mutex, left);
            }
            signalNeeded = false;
        }
    }

    @Override
    public void signalAllWhenBlocking() {
        if (signalNeeded) {
            synchronized (mutex) {
                signalNeeded = false;
                mutex.notifyAll();
            }
        }
    }
}
