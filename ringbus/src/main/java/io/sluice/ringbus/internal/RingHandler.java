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
import io.sluice.ringbus.WriteAheadLog;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The ring thread's work: key each message, append it to the batch under construction, and hand
 * the batch up when it is due: full ({@code cap} or {@code max_batch_bytes}, at once, by
 * {@code fullOp}) or old ({@code flush_interval}, checked at the end of each Disruptor batch and
 * on the wait strategy's timeout, only if the writer has room).
 *
 * <p>With a write-ahead log, each message is appended to the log before it joins the batch (the
 * log assigns its offset); the log is told of the end of each Disruptor batch (it commits if a
 * receipt waits), and committed before a batch is handed up (so under {@code none} and
 * {@code interval} a batch's records are durable in the log before the writer sees it, and under
 * {@code always} their fsync is under way) and whenever the ring goes idle; fullOp FILE leaves a
 * full batch in the log instead of a spill file. A message's receipt goes to the log, to run once
 * the message is durable; a refused message's receipt is refused through the log at once, and every
 * receipt runs at once when there is no log.
 *
 * <p>Threading: the ring thread alone touches this object's fields, except during
 * {@link #finish()}, which the closing thread calls after the ring thread has stopped. Counters
 * are kept in plain fields and published once per Disruptor batch with release stores.
 */
public final class RingHandler implements EventHandler<CaptureEvent> {

    private final RingSettings settings;
    private final KeySource keys;
    private final WriteAheadLog log;
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
    private long rejectedUnlogged;
    private long dropped;
    private long spilled;
    private long spillFailures;
    private long batches;

    /**
     * @param log   the write-ahead log, or null: offsets then come from {@code keys}
     * @param spill where fullOp FILE spills without a log; may be null
     */
    public RingHandler(RingSettings settings, KeySource keys, WriteAheadLog log, BatchSink sink, SpillDirectory spill,
                       AtomicLongArray counts, LossLog lossLog) {
        this.settings = settings;
        this.keys = keys;
        this.log = log;
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
        String topic = event.topic;
        byte[] payload = event.payload;
        Runnable receipt = event.receipt;
        long arrivalMs = event.arrivalMs;
        event.clear();
        if (keep(topic, payload, arrivalMs, receipt) && active.isFull()) {
            handUpFull();
        }
        if (endOfBatch) {
            if (log != null) {
                log.endOfBatch();
            }
            endOfBatch(System.nanoTime());
        }
    }

    /** The ring is idle: whatever the log holds is committed, and a batch that is due goes up. */
    @Override
    public void onTimeout(long sequence) {
        if (log != null) {
            log.commit();
        }
        endOfBatch(System.nanoTime());
    }

    /**
     * Keys one message and appends it to the log (if any) and the batch; false, counted, when it is
     * refused. Whatever happens, even an exception, its receipt is either in the log's care or run.
     */
    private boolean keep(String topic, byte[] payload, long arrivalMs, Runnable receipt) {
        Runnable unsettled = receipt;
        boolean kept = false;
        try {
            if (blocked) {
                rejectedBatchFull++;
                return false;
            }
            long ts = keys.ts(arrivalMs);
            long offset = log == null ? keys.nextOffset() : log.append(ts, topic, payload);
            if (offset < 0) {
                rejectedUnlogged++;
                return false;
            }
            active.append(ts, offset, topic, payload, active.size() == 0 ? System.nanoTime() : 0L);
            received++;
            if (receipt != null && log != null) {
                log.whenDurable(offset, receipt);
                unsettled = null;
            }
            kept = true;
            return true;
        } finally {
            if (unsettled != null) {
                settle(unsettled, kept);
            }
        }
    }

    /**
     * Settles a receipt now: runs it for a message kept without a log, refuses it through the log
     * for a refused one. One that throws is logged (rate-limited) and costs nothing else.
     */
    private void settle(Runnable receipt, boolean kept) {
        try {
            if (kept || log == null) {
                receipt.run();
            } else {
                log.refuse(receipt);
            }
        } catch (RuntimeException e) {
            lossLog.error("a capture receipt failed", e);
        }
    }

    private void endOfBatch(long nowNanos) {
        if (blocked) {
            blocked = !tryHandUp();
        } else if (active.size() > 0 && active.ageNanos(nowNanos) >= flushNanos) {
            tryHandUp();
        }
        publishCounters();
        lossLog.maybeReport();
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
        if (log != null) {
            log.commit(); // the batch's records reach the log before the batch can reach the writer
        }
        if (sink.tryHandOff(active, spare())) {
            advance();
            return true;
        }
        return false;
    }

    private void spillActive() {
        if (log != null && log.isAvailable()) {
            spilled += active.size();
            sink.logged(active, spare());
            advance();
            return;
        }
        if (spill == null) {
            waitingHandOff();
            return;
        }
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

    /**
     * Hands up with back-pressure; the log is committed and counters are published first, since
     * waiting may take long (and acknowledgements should not wait for the writer).
     */
    private void waitingHandOff() {
        if (log != null) {
            log.commit();
        }
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
        if (log != null) {
            log.commit();
        }
        if (active.size() > 0) {
            waitingHandOff();
        }
        blocked = false;
        publishCounters();
    }

    private void publishCounters() {
        counts.lazySet(RingCounter.RECEIVED.ordinal(), received);
        counts.lazySet(RingCounter.REJECTED_BATCH_FULL.ordinal(), rejectedBatchFull);
        counts.lazySet(RingCounter.REJECTED_UNLOGGED.ordinal(), rejectedUnlogged);
        counts.lazySet(RingCounter.DROPPED.ordinal(), dropped);
        counts.lazySet(RingCounter.SPILLED.ordinal(), spilled);
        counts.lazySet(RingCounter.SPILL_FAILURES.ordinal(), spillFailures);
        counts.lazySet(RingCounter.BATCHES.ordinal(), batches);
    }
}
