package io.sluice.exchange.internal;

import io.sluice.ringbus.Batch;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.Collections;

/**
 * Where an exchange's captured data is at one instant: published files (seq order), batches
 * waiting for the writer (handing-up order) and the batch the ring is filling. Every record is in
 * exactly one of them, and together they are in key order. Immutable: each change makes a new
 * view (copy on write), so a query works from one consistent view while batches move on.
 *
 * @param files   published files, oldest first
 * @param pending batches handed up and not yet in a published file, oldest first
 * @param active  the ring's batch under construction, or null before the ring starts
 */
public record CaptureView(List<FileEntry> files, List<PendingBatch> pending, Batch active) {

    static final CaptureView EMPTY = new CaptureView(List.of(), List.of(), null);

    public CaptureView {
        files = List.copyOf(files);
        pending = List.copyOf(pending);
    }

    CaptureView withActive(Batch next) {
        return new CaptureView(files, pending, next);
    }

    CaptureView withFiles(List<FileEntry> value) {
        return new CaptureView(value, pending, active);
    }

    CaptureView handedUp(PendingBatch batch, Batch next) {
        List<PendingBatch> more = new ArrayList<>(pending);
        more.add(batch);
        return new CaptureView(files, more, next);
    }

    /** The view after a file holding {@code written} was published and {@code retired} files left. */
    CaptureView published(FileEntry file, Collection<?> written, Collection<FileEntry> retired) {
        List<FileEntry> kept = new ArrayList<>(files.size() + 1);
        for (FileEntry entry : files) {
            if (!retired.contains(entry)) {
                kept.add(entry);
            }
        }
        if (file != null) {
            kept.add(file);
        }
        return new CaptureView(kept, without(written), active);
    }

    /** The view without some pending batches (written, or given up). */
    CaptureView withoutPending(Collection<?> batches) {
        return new CaptureView(files, without(batches), active);
    }

    private List<PendingBatch> without(Collection<?> batches) {
        Set<Object> gone = Collections.newSetFromMap(new IdentityHashMap<>());
        gone.addAll(batches);
        List<PendingBatch> left = new ArrayList<>(pending.size());
        for (PendingBatch batch : pending) {
            if (!gone.contains(batch)) {
                left.add(batch);
            }
        }
        return left;
    }
}
