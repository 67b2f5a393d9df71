package io.sluice.ringbus.internal;

import com.lmax.disruptor.EventHandler;
import io.sluice.ringbus.Batch;
import io.sluice.ringbus.BatchSink;
import io.sluice.ringbus.FullOp;
import io.sluice.ringbus.KeySource;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.ringbus.SpillDirectory;
import io.sluice.ringbus.SpilledBatch;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The ring thread's work: key each message, append it to the batch under construction, and hand
 * the batch up when it is due: full ({@code cap} or {@code max_batch_bytes}, at once, by
 * {@code fullOp}) or old ({@code flush_interval}, checked at the end of each Disruptor batch and
 * on the wait strategy's timeout, only if the writer has room).
 *
 * <p>Threading: the ring thread alone touches this object's fields, except during
 * {@link #finish()}, which the closing thread calls after the ring thread has stopped. Counters
 * are kept in plain fields and published once per Disruptor batch with release stores.
 */
public final class RingHandler implements EventHandler<CaptureEvent> {

    private final RingSettings settings;
    private final KeySource keys;
    private final BatchSink sink;
    private final SpillDirectory spill;
    private final AtomicLongArray counts;
    private final LossLog lossLog;
    private final long flushNanos;

    private Batch active;
    private Batch spare;
    private boolean blocked;
    private int lastSealedSize;
    private long received;
    private long rejectedBatchFull;
    private long dropped;
    private long spilled;
    private long spillFailures;
    private long batches;

    public RingHandler(RingSettings settings, KeySource keys, BatchSink sink, SpillDirectory spill,
                       AtomicLongArray counts, LossLog lossLog) {
        this.settings = settings;
        this.keys = keys;
        this.sink = sink;
        this.spill = spill;
        this.counts = counts;
        this.lossLog = lossLog;
        this.flushNanos = settings.flushInterval().toNanos();
        this.active = newBatch();
    }

    /** Announces the first batch; called once before the ring thread starts. */
    public void start() {
        sink.started(active);
    }

    @Override
    public void onEvent(CaptureEvent event, long sequence, boolean endOfBatch) {
        try {
            take(event.topic, event.payload, event.arrivalMs);
        } finally {
            event.clear();
        }
        if (endOfBatch) {
            endOfBatch(System.nanoTime());
        }
    }

    @Override
    public void onTimeout(long sequence) {
        endOfBatch(System.nanoTime());
    }

    private void take(String topic, byte[] payload, long arrivalMs) {
        if (blocked) {
            rejectedBatchFull++;
            return;
        }
        long now = active.size() == 0 ? System.nanoTime() : 0L;
        active.append(keys.ts(arrivalMs), keys.nextOffset(), topic, payload, now);
        received++;
        if (active.isFull()) {
            handUpFull();
        }
    }

    private void endOfBatch(long nowNanos) {
        if (blocked) {
            blocked = !tryHandUp();
        } else if (active.size() > 0 && active.ageNanos(nowNanos) >= flushNanos) {
            tryHandUp();
        }
        publishCounters();
        lossLog.maybeReport(nowNanos);
    }

    private void handUpFull() {
        FullOp op = settings.fullOp();
        if (op == FullOp.RETURN) {
            waitingHandOff();
        } else if (!tryHandUp()) {
            if (op == FullOp.NONE) {
                blocked = true;
            } else if (op == FullOp.DROP) {
                dropped += active.size();
                sink.dropped(active, spare());
                advance();
            } else {
                spillActive();
            }
        }
    }

    private boolean tryHandUp() {
        if (sink.tryHandOff(active, spare())) {
            advance();
            return true;
        }
        return false;
    }

    private void spillActive() {
        Batch.Contents contents = active.contents();
        SpilledBatch file;
        try {
            file = spill.write(contents);
        } catch (Exception e) {
            spillFailures++;
            lossLog.error("cannot spill the batch of offsets " + contents.firstOffset() + ".." + contents.lastOffset()
                    + " to " + spill.dir() + "; handing it up with back-pressure instead", e);
            waitingHandOff();
            return;
        }
        spilled += contents.size();
        sink.spilled(file, active, spare());
        advance();
    }

    /** Hands up with back-pressure; counters are published first, since waiting may take long. */
    private void waitingHandOff() {
        publishCounters();
        sink.handOff(active, spare());
        advance();
    }

    private Batch spare() {
        if (spare == null) {
            spare = newBatch();
        }
        return spare;
    }

    private Batch newBatch() {
        return new Batch(lastSealedSize, settings.cap(), settings.maxBatchBytes());
    }

    private void advance() {
        lastSealedSize = active.size();
        active.seal();
        active = spare;
        spare = null;
        batches++;
    }

    /**
     * Hands up what is left, waiting for room whatever the policy, so a graceful close loses
     * nothing; called on the closing thread after the ring thread stopped.
     */
    public void finish() {
        if (active.size() > 0) {
            waitingHandOff();
        }
        blocked = false;
        publishCounters();
    }

    private void publishCounters() {
        counts.lazySet(RingCounter.RECEIVED.ordinal(), received);
        counts.lazySet(RingCounter.REJECTED_BATCH_FULL.ordinal(), rejectedBatchFull);
        counts.lazySet(RingCounter.DROPPED.ordinal(), dropped);
        counts.lazySet(RingCounter.SPILLED.ordinal(), spilled);
        counts.lazySet(RingCounter.SPILL_FAILURES.ordinal(), spillFailures);
        counts.lazySet(RingCounter.BATCHES.ordinal(), batches);
    }
}
