package io.sluice.exchange.internal;

import io.sluice.exchange.ExchangeCounter;
import io.sluice.parquet.ParquetStore;
import io.sluice.parquet.StoreBatch;
import io.sluice.parquet.StoreListener;
import io.sluice.parquet.StoredFile;
import io.sluice.ringbus.Batch;
import io.sluice.ringbus.BatchSink;
import io.sluice.ringbus.SpillDirectory;
import io.sluice.ringbus.SpilledBatch;
import io.sluice.stream.StreamCodec;
import java.io.IOException;
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
 */
public final class Custody implements BatchSink, StoreListener {

    private static final Logger LOG = LoggerFactory.getLogger(Custody.class);
    private static final long ROOM_POLL_MS = 100;

    private final String exchange;
    private final StreamCodec codec;
    private final SpillDirectory spill;
    private final AtomicLongArray counts;
    private final ErrorLog errors;
    private ParquetStore store;
    private volatile CaptureView view = CaptureView.EMPTY;
    private volatile boolean closing;

    /**
     * @param spill  where spilled batches live and unwritten ones are saved at close; may be null
     * @param counts the exchange's counters, indexed by {@link ExchangeCounter}
     */
    public Custody(String exchange, StreamCodec codec, SpillDirectory spill, AtomicLongArray counts) {
        this.exchange = exchange;
        this.codec = codec;
        this.spill = spill;
        this.counts = counts;
        this.errors = new ErrorLog(LOG, exchange);
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
        accept(PendingBatch.inMemory(sealed, codec, this), next);
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
            accept(PendingBatch.inMemory(sealed, codec, this), next);
        }
    }

    @Override
    public synchronized void spilled(SpilledBatch spilled, Batch sealed, Batch next) {
        accept(PendingBatch.spilled(spilled, codec, spill, this), next);
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
        List<FileEntry> gone = new ArrayList<>(retired.size());
        synchronized (this) {
            Map<Long, FileEntry> bySeq = new HashMap<>();
            view.files().forEach(entry -> bySeq.put(entry.file().seq(), entry));
            for (StoredFile old : retired) {
                FileEntry entry = bySeq.get(old.seq());
                gone.add(entry != null ? entry : new FileEntry(old, this));
            }
            view = view.published(new FileEntry(file, this), batches, gone);
        }
        for (StoreBatch batch : batches) {
            ((PendingBatch) batch).retire();
        }
        gone.forEach(FileEntry::retire);
    }

    @Override
    public void discarded(StoreBatch batch, RuntimeException cause) {
        PendingBatch pending = (PendingBatch) batch;
        synchronized (this) {
            view = view.withoutPending(List.of(pending));
        }
        count(ExchangeCounter.RECORDS_LOST, pending.rows());
        errors.error(pending.rows() + " records of " + pending + " are lost: the plugin could not encode them", cause);
        if (pending.spilledBatch() != null) {
            spill.quarantine(pending.spilledBatch().path(), cause);
        }
    }

    @Override
    public void unwritten(List<StoreBatch> batches, Exception cause) {
        for (StoreBatch batch : batches) {
            PendingBatch pending = (PendingBatch) batch;
            if (pending.spilledBatch() != null) {
                LOG.warn("exchange {}: {} stays on disk and is written at the next start", exchange, pending);
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
