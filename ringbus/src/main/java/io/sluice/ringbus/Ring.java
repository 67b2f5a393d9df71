package io.sluice.ringbus;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.ExceptionHandler;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import io.sluice.ringbus.internal.CaptureEvent;
import io.sluice.ringbus.internal.LossLog;
import io.sluice.ringbus.internal.RingHandler;
import io.sluice.ringbus.internal.PollThenBlockWaitStrategy;
import io.sluice.settings.InvalidSettingException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One exchange's ring: a multi-producer LMAX Disruptor ring whose single consumer thread,
 * {@code sluice-exchange-<name>-ring}, keys each message and collects it into batches that it
 * hands up to a {@link BatchSink} (see {@link RingSettings} and {@link FullOp} for when).
 *
 * <p>{@link #offer} is the tee: any number of broker threads call it; it never blocks and never
 * allocates (slots are preallocated, the claim is {@code tryNext}); a full ring is a {@code false}
 * return and a counter. The consumer polls for a moment, then blocks with a timeout
 * ({@link PollThenBlockWaitStrategy}), so an idle ring costs a few wake-ups per second, not a
 * core, and a busy one costs offering threads nothing to wake it.
 *
 * <p>With a {@link WriteAheadLog}, the ring thread appends every message to it first and takes
 * the message's offset from it, commits it at the end of every Disruptor batch, and hands each
 * message's receipt ({@link #offer(String, byte[], long, Runnable)}) to it to run once the message
 * is durable. The offer itself stays the same: one slot, no allocation, never a wait.
 *
 * <p>An exception on the ring thread is counted ({@link RingCounter#HANDLER_ERRORS}), logged
 * (rate-limited, with the exchange name) and costs the one message; the thread keeps going.
 */
public final class Ring implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Ring.class);
    private static final long MIN_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /** Offering threads look at the loss log on a full ring's refusals number 1, 65, 129, ... (the count masked by this is 1). */
    private static final long REPORT_MASK = 63;

    private final String exchange;
    private final RingSettings settings;
    private final RingBuffer<CaptureEvent> ring;
    private final BatchEventProcessor<CaptureEvent> processor;
    private final RingHandler handler;
    private final Thread thread;
    private final AtomicLongArray counts = new AtomicLongArray(RingCounter.values().length);
    private final LossLog lossLog;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean accepting = true;

    /**
     * A ring without a write-ahead log: offsets come from {@code keys}.
     *
     * @param exchange the exchange's name, for the thread name and messages
     * @param spill    where fullOp FILE spills; may be null for other policies
     */
    public Ring(String exchange, RingSettings settings, KeySource keys, BatchSink sink, SpillDirectory spill) {
        this(exchange, settings, keys, null, sink, spill);
    }

    /**
     * @param exchange the exchange's name, for the thread name and messages
     * @param keys     gives each message its ts, and its offset when there is no log
     * @param log      the write-ahead log every message is appended to, which assigns offsets; may be null
     * @param spill    where fullOp FILE spills when there is no log (or it failed); may be null otherwise
     */
    public Ring(String exchange, RingSettings settings, KeySource keys, WriteAheadLog log, BatchSink sink, SpillDirectory spill) {
        if (settings.fullOp() == FullOp.FILE && spill == null && log == null) {
            throw new InvalidSettingException("ringbus.spill_dir", "exchange " + exchange + " has fullOp 3 (FILE) but no spill directory");
        }
        this.exchange = exchange;
        this.settings = settings;
        this.lossLog = new LossLog(LOG, exchange, counts, LossLog.INTERVAL);
        long tick = Math.max(MIN_TICK_NANOS, Math.min(MAX_TICK_NANOS, settings.flushInterval().toNanos() / 4));
        this.ring = RingBuffer.createMultiProducer(CaptureEvent::new, settings.effectiveSlots(),
                new PollThenBlockWaitStrategy(tick));
        this.handler = new RingHandler(settings, keys, log, sink, spill, counts, lossLog);
        this.processor = new BatchEventProcessorBuilder().build(ring, ring.newBarrier(), handler);
        this.processor.setExceptionHandler(new CountingExceptionHandler());
        ring.addGatingSequences(processor.getSequence());
        this.thread = new Thread(processor, "sluice-exchange-" + exchange + "-ring");
        this.thread.setDaemon(true);
    }

    /** Starts the ring thread. */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("ring of exchange " + exchange + " already started");
        }
        handler.start();
        thread.start();
    }

    /** Offers a message that arrived now. */
    public boolean offer(String topic, byte[] payload) {
        return offer(topic, payload, System.currentTimeMillis());
    }

    /**
     * Offers one message; any thread, never blocks, allocates nothing.
     *
     * @param payload   bytes the ring may keep; the caller never changes them afterwards
     * @param arrivalMs when the message arrived, epoch ms; its ts is this or the previous ts, whichever is larger
     * @return false when the ring is full or closing (counted)
     */
    public boolean offer(String topic, byte[] payload, long arrivalMs) {
        return offer(topic, payload, arrivalMs, null);
    }

    /**
     * Offers one message whose {@code receipt} runs once the message is durable in the ring's
     * write-ahead log; any thread, never blocks, allocates nothing. The receipt is settled exactly
     * once if this returns true: run when the log holds the message durably (or at once when the
     * ring has no log), refused through the log ({@link WriteAheadLog#refuse}) when the ring thread
     * refuses the message (a blocked batch, a log that cannot take it). If this returns false the
     * receipt is never touched and the caller settles it.
     *
     * @param receipt runs on a ring, flusher or closing thread; must be quick and never block; may be null
     * @return false when the ring is full or closing (counted)
     */
    public boolean offer(String topic, byte[] payload, long arrivalMs, Runnable receipt) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        if (!accepting) {
            counts.incrementAndGet(RingCounter.REJECTED_CLOSED.ordinal());
            return false;
        }
        long sequence;
        try {
            sequence = ring.tryNext();
        } catch (InsufficientCapacityException e) {
            long rejected = counts.incrementAndGet(RingCounter.REJECTED_RING_FULL.ordinal());
            if ((rejected & REPORT_MASK) == 1) {
                lossLog.maybeReport(); // the ring thread may be waiting for the writer; not on every refusal, to stay cheap
            }
            return false;
        }
        try {
            ring.get(sequence).set(topic, payload, arrivalMs, receipt);
        } finally {
            ring.publish(sequence);
        }
        return true;
    }

    /** A counter's current value; any thread. */
    public long counter(RingCounter counter) {
        return counts.get(counter.ordinal());
    }

    /** Messages offered but not yet taken by the ring thread. */
    public long backlog() {
        return ring.getBufferSize() - ring.remainingCapacity();
    }

    public RingSettings settings() {
        return settings;
    }

    /**
     * Stops taking offers, takes every message already offered, hands up the last batch (waiting
     * for room whatever the policy) and stops the ring thread. Call it after the broker stopped
     * offering: an offer racing with close is refused and counted, or still taken.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        accepting = false;
        if (started.get()) {
            processor.halt();
            joinUninterruptibly();
        }
        drainLeftovers();
        handler.finish();
        lossLog.flush();
        LOG.debug("exchange {}: ring closed, {} messages taken", exchange, counter(RingCounter.RECEIVED));
    }

    /** Events published but not processed when the thread stopped; taken on the closing thread. */
    private void drainLeftovers() {
        long next = processor.getSequence().get() + 1;
        long cursor = ring.getCursor();
        for (long sequence = next; sequence <= cursor; sequence++) {
            while (!ring.isAvailable(sequence)) {
                Thread.onSpinWait();
            }
            CaptureEvent event = ring.get(sequence);
            try {
                handler.onEvent(event, sequence, sequence == cursor);
            } catch (Throwable e) {
                counts.incrementAndGet(RingCounter.HANDLER_ERRORS.ordinal());
                lossLog.error("failed to take offered message " + sequence + " while closing", e);
            }
        }
        processor.getSequence().set(cursor);
    }

    private void joinUninterruptibly() {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Counts, logs and survives what the handler throws; the Disruptor's default would stop the thread. */
    private final class CountingExceptionHandler implements ExceptionHandler<CaptureEvent> {

        @Override
        public void handleEventException(Throwable ex, long sequence, CaptureEvent event) {
            counts.incrementAndGet(RingCounter.HANDLER_ERRORS.ordinal());
            if (event != null) {
                event.clear();
            }
            lossLog.error("ring thread failed on message " + sequence + ", which is lost", ex);
        }

        @Override
        public void handleOnStartException(Throwable ex) {
            lossLog.error("ring thread failed to start", ex);
        }

        @Override
        public void handleOnShutdownException(Throwable ex) {
            lossLog.error("ring thread failed to stop", ex);
        }
    }
}
