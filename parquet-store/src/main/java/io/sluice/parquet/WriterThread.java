package io.sluice.parquet;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store's writer thread, {@code sluice-exchange-<name>-writer}, kept alive. When its
 * {@link StoreWriter} dies on an unexpected error (a plugin throwing an {@link Error}, say), the
 * death is counted and logged, the batches it had taken go back to the head of the queue, and a new
 * thread starts after a pause ({@value #FIRST_PAUSE_MS} ms, doubling), so nothing taken is lost.
 * After {@value #MAX_DEATHS_IN_A_ROW} deaths with no file published in between, the cause is taken
 * to be the data or the plugin, not luck: no new thread starts, and {@link #problem()} says why, so
 * that the exchange refuses messages that nobody would write rather than queue them. The batches
 * still queued then wait for {@link #close}, which hands them to the listener as unwritten (they
 * stay in the write-ahead log or are spilled for the next start).
 *
 * <p>Threads: {@link #died} runs on the dying writer thread, which starts its successor before it
 * ends; {@link #published} on the writer thread; the rest on any thread.
 */
final class WriterThread {

    private static final Logger LOG = LoggerFactory.getLogger(WriterThread.class);
    static final int MAX_DEATHS_IN_A_ROW = 3;
    static final long FIRST_PAUSE_MS = 100;

    private final ParquetStore store;
    private final WriteQueue queue;
    private final Supplier<Runnable> writers;
    private volatile Thread current;
    private volatile String problem;
    private volatile Throwable lastCause;
    private int deathsInARow;

    WriterThread(ParquetStore store, WriteQueue queue, Supplier<Runnable> writers) {
        this.store = store;
        this.queue = queue;
        this.writers = writers;
    }

    void start() {
        Thread thread = new Thread(writers.get(), "sluice-exchange-" + store.exchange() + "-writer");
        thread.setDaemon(true);
        current = thread;
        thread.start();
    }

    /** A file was published: the writer works, whatever killed it before. */
    void published() {
        deathsInARow = 0;
    }

    /** Why the writer is dead for good, or null while it works (or is about to be restarted). */
    String problem() {
        return problem;
    }

    /** The writer thread ended on {@code cause} before the store closed (its own thread). */
    void died(Throwable cause) {
        store.count(StoreCounter.WRITER_DEATHS, 1);
        lastCause = cause;
        int putBack = queue.putBackTaken();
        deathsInARow++;
        if (deathsInARow >= MAX_DEATHS_IN_A_ROW) {
            problem = "the Parquet writer thread died " + deathsInARow + " times in a row without publishing a file, last on "
                    + cause + "; it is not restarted: fix the cause (see the log) and restart the broker";
            LOG.error("exchange {}: {}. {} batches wait in its queue and are kept at close (in the write-ahead log or "
                    + "spilled); new messages are refused", store.exchange(), problem, putBack, cause);
            return;
        }
        long pause = FIRST_PAUSE_MS << (deathsInARow - 1);
        LOG.error("exchange {}: the Parquet writer thread died (death {} in a row); its {} batches are queued again and a new "
                + "writer starts in {} ms", store.exchange(), deathsInARow, putBack, pause, cause);
        try {
            queue.awaitClosing(pause, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        start();
    }

    /**
     * Waits for the writer (and any successor it starts) to finish what is queued; when it is dead
     * for good, hands what is left to the listener as unwritten.
     */
    void join(StoreListener listener) throws InterruptedException {
        Thread thread;
        while ((thread = current).isAlive()) {
            thread.join(); // a dying writer sets its successor as current before it ends
        }
        if (problem == null) {
            return;
        }
        List<StoreBatch> left = queue.takeAll(0);
        if (left.isEmpty()) {
            return;
        }
        queue.done(left);
        store.count(StoreCounter.BATCHES_UNWRITTEN, left.size());
        Exception cause = new IllegalStateException("exchange " + store.exchange() + ": " + problem, lastCause);
        listener.unwritten(left, cause);
    }
}
