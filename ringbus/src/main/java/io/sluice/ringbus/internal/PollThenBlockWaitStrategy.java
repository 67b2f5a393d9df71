package io.sluice.ringbus.internal;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How the ring thread waits for offers: it sleeps a little and looks again, a few times with
 * growing sleeps (50 µs to 800 µs, 1.5 ms in all), and only then blocks with a timeout (the
 * flush tick). Under load the next offers arrive while it sleeps, so offering threads never signal
 * anyone: their side of the handshake is one volatile read of a flag that stays false, and the
 * ring thread takes the offers of 50 µs at a time. Only when it has really gone to sleep does an
 * offer pay for waking it. Spinning instead would take a core that the broker's event loops need.
 *
 * <p>Disruptor's {@code LiteTimeoutBlockingWaitStrategy} makes every publish an atomic
 * read-modify-write of a flag shared by all producers and the consumer; on the broker's event
 * loops that cache line moved between cores on every captured message.
 *
 * <p>No lost wake-up: the ring thread raises {@code signalNeeded} and then reads the cursor again
 * before it waits; a producer advances the cursor and then reads {@code signalNeeded}. Both are
 * volatile, so at least one of them sees the other's write. Even a missed signal would cost at
 * most one timeout tick, never a hang.
 */
public final class PollThenBlockWaitStrategy implements WaitStrategy {
    private static final long FIRST_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    private static final int POLLS = 5;

    private final Object mutex = new Object();
    private final long timeoutNanos;
    private volatile boolean signalNeeded;

    /** @param timeoutNanos how long the ring thread sleeps before its timeout tick */
    public PollThenBlockWaitStrategy(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public long waitFor(long sequence, Sequence cursor, Sequence dependentSequence, SequenceBarrier barrier)
            throws AlertException, InterruptedException, TimeoutException {
        if (cursor.get() < sequence && !poll(sequence, cursor, barrier)) {
            block(sequence, cursor, barrier);
        }
        long available;
        while ((available = dependentSequence.get()) < sequence) {
            barrier.checkAlert();
            Thread.onSpinWait();
        }
        return available;
    }

    /** True once the cursor reached {@code sequence} within the polls. */
    private static boolean poll(long sequence, Sequence cursor, SequenceBarrier barrier) throws AlertException {
        long sleep = FIRST_POLL_NANOS;
        for (int i = 0; i < POLLS; i++, sleep <<= 1) {
            barrier.checkAlert();
            LockSupport.parkNanos(sleep);
            if (cursor.get() >= sequence) {
                return true;
            }
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
