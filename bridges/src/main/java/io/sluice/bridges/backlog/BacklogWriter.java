package io.sluice.bridges.backlog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.BridgeCounters;
import io.sluice.logging.RateLimitedLog;
import io.sluice.storage.Receipt;
import io.sluice.storage.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that appends to a bridge's backlog ({@code sluice-bridge-<name>-writer}), so that
 * no event loop ever waits for the disk. Taps {@link #offer} messages without blocking; the writer
 * takes everything queued, appends it as one batch (one fsync under {@code flush = always}), then
 * runs each message's release (the held PUBACK/PUBREC of its publisher) and tells the bridge that
 * new messages wait. A full queue refuses at once, counted as {@code refused_busy}.
 */
public final class BacklogWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BacklogWriter.class);
    /** Messages taken per batch at most. */
    private static final int BATCH = 4096;

    /** One message handed over by a tap: what to store and what to run once it is durable (or null). */
    private record Pending(BacklogRecord record, Runnable release) {
    }

    private final String bridge;
    private final Backlog backlog;
    private final BridgeCounters counters;
    private final Runnable onStored;
    private final BlockingQueue<Pending> queue;
    private final RateLimitedLog errorLog;
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * @param queueCapacity messages that may wait for the writer before taps are refused
     * @param onStored      called after each batch is durable (wakes the bridge)
     */
    public BacklogWriter(String bridge, Backlog backlog, BridgeCounters counters, int queueCapacity, Runnable onStored) {
        this.bridge = bridge;
        this.backlog = backlog;
        this.counters = counters;
        this.onStored = onStored;
        this.queue = new ArrayBlockingQueue<>(queueCapacity);
        this.errorLog = RateLimitedLog.onePer(LOG, "bridge " + bridge, Duration.ofSeconds(10));
        this.thread = new Thread(this::run, "sluice-bridge-" + bridge + "-writer");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /**
     * Any thread, never blocks: queues {@code record}; {@code release} (may be null) runs once it is
     * stored, and is refused ({@link Receipt#refuse}) when the backlog does not admit it or its write
     * fails. False when the queue is full: the caller settles {@code release} itself.
     */
    public boolean offer(BacklogRecord record, Runnable release) {
        if (running && queue.offer(new Pending(record, release))) {
            return true;
        }
        counters.increment(BridgeCounter.REFUSED_BUSY);
        errorLog.warn("the backlog writer is " + queue.size() + " messages behind (disk too slow?): refusing new"
                + " messages; " + counters.get(BridgeCounter.REFUSED_BUSY) + " refused so far");
        return false;
    }

    private void run() {
        List<Pending> batch = new ArrayList<>(BATCH);
        while (running || !queue.isEmpty()) {
            boolean[] stored = null;
            try {
                Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                stored = write(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                LOG.error("bridge {}: the backlog writer failed; it carries on with the next messages", bridge, e);
            } finally {
                settle(batch, stored);
                batch.clear();
            }
        }
    }

    /** Stores what the backlog admits; returns which messages of the batch are stored. */
    private boolean[] write(List<Pending> batch) {
        byte[][] values = new byte[batch.size()][];
        int[] sizes = new int[batch.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = batch.get(i).record().encode();
            sizes[i] = values[i].length;
        }
        boolean[] admitted = backlog.admit(sizes);
        List<Record> records = new ArrayList<>(batch.size());
        for (int i = 0; i < values.length; i++) {
            if (admitted[i]) {
                records.add(Record.ofValue(values[i], Math.max(0, batch.get(i).record().message().createdMillis())));
            }
        }
        if (records.isEmpty()) {
            return admitted;
        }
        try {
            backlog.store(records);
            counters.add(BridgeCounter.QUEUED, records.size());
        } catch (RuntimeException e) {
            counters.add(BridgeCounter.STORE_FAILED, records.size());
            errorLog.error(records.size() + " messages could not be stored and will not be forwarded; their publishers "
                    + "are not told they were stored: " + e.getMessage(), e);
            return null;
        }
        onStored.run();
        return admitted;
    }

    /** Runs the releases of stored messages and refuses those of the others ({@code stored} null: none). */
    private static void settle(List<Pending> batch, boolean[] stored) {
        for (int i = 0; i < batch.size(); i++) {
            Runnable release = batch.get(i).release();
            if (stored != null && stored[i]) {
                release(release);
            } else {
                Receipt.refuse(release);
            }
        }
    }

    private static void release(Runnable release) {
        if (release != null) {
            release.run();
        }
    }

    /** Stores everything already queued, then stops. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("bridge {}: the backlog writer did not finish within 30 s", bridge);
        }
    }
}
