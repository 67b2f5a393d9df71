package io.sluice.exchange.internal;

import io.sluice.exchange.ExchangeCounter;
import io.sluice.logging.RateLimitedLog;
import io.sluice.parquet.ParquetStore;
import io.sluice.parquet.StoreBatch;
import io.sluice.parquet.StoreListener;
import io.sluice.parquet.StoredFile;
import io.sluice.ringbus.Batch;
import io.sluice.ringbus.BatchSink;
import io.sluice.ringbus.SpillDirectory;
import io.sluice.ringbus.SpilledBatch;
import io.sluice.storage.FlushPolicy;
import io.sluice.stream.StreamCodec;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps track of where each of an exchange's batches is, as one {@link CaptureView} replaced
 * atomically at every move: the ring thread hands batches up (to the writer's queue, to a spill
 * file, or away under DROP), the writer thread publishes files and retention retires old ones,
 * and queries take {@link #snapshot}s. Every change happens under this object's lock, which is
 * taken a few times per batch, never per message. A batch joins the view before it reaches the
 * writer, so a file can never be published for a batch the view does not know.
 *
 * <p>With a write-ahead log, custody also decides how far the log may be trimmed: below the lowest
 * offset that is still only in the log, i.e. not yet in a published file. That is the first offset
 * of the oldest pending batch, else of the ring's batch, else the log's high watermark (read
 * before the view, so a record that became durable meanwhile is in the view read after it), and
 * never past a logged batch that left the view but that a query still reads.
 */
public final class Custody implements BatchSink, StoreListener {

    private static final Logger LOG = LoggerFactory.getLogger(Custody.class);
    /** A failure that repeats (a plugin failing on every batch, a disk refusing deletes) is logged once per this. */
    private static final Duration ERROR_INTERVAL = Duration.ofSeconds(10);
    private static final long ROOM_POLL_MS = 100;

    private final String exchange;
    private final StreamCodec codec;
    private final SpillDirectory spill;
    private final ExchangeLog log;
    private final AtomicLongArray counts;
    private final RateLimitedLog errors;
    private ParquetStore store;
    private volatile CaptureView view = CaptureView.EMPTY;
    private volatile boolean closing;
    /** Logged batches out of the view that queries still read: the log keeps their records. */
    private final List<PendingBatch> leavingLog = new ArrayList<>();

    /**
     * @param spill  where spilled batches live and unwritten ones are saved at close; may be null
     * @param log    the write-ahead log, or null with durability none
     * @param counts the exchange's counters, indexed by {@link ExchangeCounter}
     */
    public Custody(String exchange, StreamCodec codec, SpillDirectory spill, ExchangeLog log, AtomicLongArray counts) {
        this.exchange = exchange;
        this.codec = codec;
        this.spill = spill;
        this.log = log;
        this.counts = counts;
        this.errors = RateLimitedLog.onePer(LOG, "exchange " + exchange, ERROR_INTERVAL);
        if (log != null && log.flushPolicy() == FlushPolicy.ALWAYS) {
            log.onAdvance(this::durableBelow); // under none and interval, logged rows are durable when handed up
        }
    }

    /** Takes the store and the files it found; once, before the ring starts. */
    public synchronized void attach(ParquetStore attached) {
        this.store = attached;
        List<FileEntry> files = new ArrayList<>();
        for (StoredFile file : attached.files()) {
            files.add(new FileEntry(file, this));
        }
        view = view.withFiles(files);
    }

    /** Queues batches spilled before a restart, ahead of anything new. */
    public synchronized void recover(List<SpilledBatch> spilled) {
        for (SpilledBatch batch : spilled) {
            PendingBatch pending = PendingBatch.spilled(batch, codec, spill, this);
            view = view.handedUp(pending, view.active());
            store.enqueue(pending);
            count(ExchangeCounter.BATCHES_RECOVERED, 1);
            count(ExchangeCounter.RECORDS_RECOVERED, batch.count());
        }
    }

    /** Queues the write-ahead log's records that are not in Parquet yet, after any spilled batches; once, at open. */
    public synchronized void replay(List<LoggedRange> ranges) {
        for (LoggedRange range : ranges) {
            PendingBatch pending = PendingBatch.logged(null, range, codec, log, this);
            view = view.handedUp(pending, view.active());
            store.enqueue(pending);
            count(ExchangeCounter.WAL_BATCHES_REPLAYED, 1);
            count(ExchangeCounter.WAL_RECORDS_REPLAYED, range.count());
        }
    }

    /** From now on the last hand-offs go to the writer whatever its queue holds; close is writing everything. */
    public void closing() {
        closing = true;
    }

    public CaptureView view() {
        return view;
    }

    // ---- the ring thread ----

    @Override
    public synchronized void started(Batch first) {
        view = view.withActive(first);
    }

    @Override
    public synchronized boolean tryHandOff(Batch sealed, Batch next) {
        if (!store.hasRoom()) {
            return false;
        }
        accept(PendingBatch.ofRing(sealed, codec, log, this), next);
        return true;
    }

    @Override
    public void handOff(Batch sealed, Batch next) {
        boolean interrupted = false;
        while (!closing && !store.hasRoom()) {
            try {
                store.awaitRoom(ROOM_POLL_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            accept(PendingBatch.ofRing(sealed, codec, log, this), next);
        }
    }

    @Override
    public synchronized void spilled(SpilledBatch spilled, Batch sealed, Batch next) {
        accept(PendingBatch.spilled(spilled, codec, spill, this), next);
    }

    /**
     * The batch stays in the log; its rows stay in memory too until they are durable there (only
     * durable records can be read back): at once under {@code none} and {@code interval}, since
     * the ring committed the log before handing the batch up, after the next fsync under {@code always}.
     */
    @Override
    public synchronized void logged(Batch sealed, Batch next) {
        LoggedRange range = LoggedRange.of(sealed.contents());
        boolean durable = log.highWatermark() > range.lastOffset();
        accept(PendingBatch.logged(durable ? null : sealed, range, codec, log, this), next);
    }

    /** The log's high watermark moved (on a flusher thread): logged rows below it leave memory. */
    private void durableBelow(long highWatermark) {
        for (PendingBatch batch : view.pending()) {
            batch.releaseMemory(highWatermark);
        }
    }

    @Override
    public synchronized void dropped(Batch sealed, Batch next) {
        view = view.withActive(next);
    }

    private void accept(PendingBatch batch, Batch next) {
        view = view.handedUp(batch, next);
        store.enqueue(batch);
    }

    // ---- the writer thread ----

    @Override
    public void published(StoredFile file, List<StoreBatch> batches, List<StoredFile> retired) {
        List<FileEntry> gone;
        synchronized (this) {
            gone = entries(retired);
            view = view.published(new FileEntry(file, this), batches, gone);
            for (StoreBatch batch : batches) {
                PendingBatch pending = (PendingBatch) batch;
                if (pending.loggedRange() != null && pending.isPinned()) {
                    leavingLog.add(pending); // out of the view now, so no new pin; the trim below keeps its records
                }
            }
        }
        for (StoreBatch batch : batches) {
            ((PendingBatch) batch).retire();
        }
        gone.forEach(FileEntry::retire);
        trim();
    }

    @Override
    public void expired(List<StoredFile> retired) {
        List<FileEntry> gone;
        synchronized (this) {
            gone = entries(retired);
            view = view.published(null, List.of(), gone);
        }
        gone.forEach(FileEntry::retire);
    }

    /** The view's entries of files retention retired; under the lock. */
    private List<FileEntry> entries(List<StoredFile> retired) {
        List<FileEntry> gone = new ArrayList<>(retired.size());
        Map<Long, FileEntry> bySeq = new HashMap<>();
        view.files().forEach(entry -> bySeq.put(entry.file().seq(), entry));
        for (StoredFile old : retired) {
            FileEntry entry = bySeq.get(old.seq());
            gone.add(entry != null ? entry : new FileEntry(old, this));
        }
        return gone;
    }

    @Override
    public void discarded(StoreBatch batch, RuntimeException cause) {
        PendingBatch pending = (PendingBatch) batch;
        synchronized (this) {
            view = view.withoutPending(List.of(pending));
            if (pending.loggedRange() != null) {
                leavingLog.add(pending);
            }
        }
        count(ExchangeCounter.RECORDS_LOST, pending.rows());
        errors.error(pending.rows() + " records of " + pending + " are lost: the plugin could not encode them", cause);
        if (pending.spilledBatch() != null) {
            spill.quarantine(pending.spilledBatch().path(), cause);
        } else if (pending.loggedRange() != null) {
            pending.retire();
        }
    }

    @Override
    public void unwritten(List<StoreBatch> batches, Exception cause) {
        for (StoreBatch batch : batches) {
            PendingBatch pending = (PendingBatch) batch;
            if (pending.spilledBatch() != null) {
                LOG.warn("exchange {}: {} stays on disk and is written at the next start", exchange, pending);
            } else if (log != null && log.holds(pending.lastOffset())) {
                log.hold(pending.firstOffset());
                LOG.warn("exchange {}: {} stays in the write-ahead log and is written at the next start", exchange, pending);
            } else {
                save(pending, cause);
            }
        }
        synchronized (this) {
            view = view.withoutPending(batches);
        }
    }

    /** Spills a batch the writer could not write at close, so the next start writes it. */
    private void save(PendingBatch pending, Exception cause) {
        if (spill != null) {
            try {
                SpilledBatch saved = spill.write(pending.contents());
                count(ExchangeCounter.BATCHES_SAVED, 1);
                LOG.warn("exchange {}: saved {} to {}; it is written at the next start", exchange, pending, saved.path());
                return;
            } catch (IOException | RuntimeException e) {
                cause.addSuppressed(e);
            }
        }
        count(ExchangeCounter.RECORDS_LOST, pending.rows());
        LOG.error("exchange {}: {} records of {} are lost: neither written to Parquet nor saved to a spill directory ({})",
                exchange, pending.rows(), pending, spill == null ? "none configured" : spill.dir(), cause);
    }

    // ---- trimming the write-ahead log, on the writer thread or a query's ----

    /** Trims the write-ahead log below the lowest offset that is still only there (see the class comment). */
    private void trim() {
        if (log == null) {
            return;
        }
        long durable = log.highWatermark();
        long keepFrom = durable;
        synchronized (this) {
            CaptureView current = view;
            for (PendingBatch batch : current.pending()) {
                keepFrom = Math.min(keepFrom, batch.firstOffset());
            }
            Batch active = current.active();
            if (active != null && active.size() > 0) {
                keepFrom = Math.min(keepFrom, active.contents().firstOffset());
            }
            for (PendingBatch batch : leavingLog) {
                keepFrom = Math.min(keepFrom, batch.firstOffset());
            }
        }
        log.trim(keepFrom);
    }

    /** A logged batch out of the view is no longer read by any query: the log may let its records go. */
    void leftLog(PendingBatch batch) {
        boolean leaving;
        synchronized (this) {
            leaving = leavingLog.remove(batch);
        }
        if (leaving) {
            trim(); // each trim persists the log's start offset: once per file published, not once per batch
        }
    }

    // ---- queries ----

    /** Pins and returns what a query of keys [start, end] reads. */
    public synchronized Snapshot snapshot(long start, long end) {
        CaptureView current = view;
        List<FileEntry> files = new ArrayList<>();
        for (FileEntry entry : current.files()) {
            if (entry.file().overlaps(start, end)) {
                entry.pin();
                files.add(entry);
            }
        }
        List<PendingBatch> pending = new ArrayList<>();
        for (PendingBatch batch : current.pending()) {
            if (batch.overlaps(start, end)) {
                batch.pin();
                pending.add(batch);
            }
        }
        Batch.Contents active = current.active() == null ? Batch.Contents.EMPTY : current.active().contents();
        return new Snapshot(files, pending, active);
    }

    // ---- deletion, on whichever thread released the last pin ----

    void deleteFile(StoredFile file) {
        try {
            store.delete(file);
        } catch (IOException | RuntimeException e) {
            count(ExchangeCounter.DELETE_FAILURES, 1);
            errors.error("cannot delete retired file " + file.location(), e);
        }
    }

    void deleteSpill(SpilledBatch spilled) {
        try {
            spill.delete(spilled);
        } catch (IOException | RuntimeException e) {
            count(ExchangeCounter.DELETE_FAILURES, 1);
            errors.error("cannot delete spill file " + spilled.path() + ", whose batch is in Parquet", e);
        }
    }

    private void count(ExchangeCounter counter, long delta) {
        counts.addAndGet(counter.ordinal(), delta);
    }
}
