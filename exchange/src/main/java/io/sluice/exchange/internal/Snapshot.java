package io.sluice.exchange.internal;

import io.sluice.ringbus.Batch;
import java.util.List;

/**
 * What one query reads: the files and pending batches of one view that may hold keys in its
 * range, pinned, and the filled prefix of the ring's batch at that instant. In this order they
 * are in key order with no record twice and none missing.
 *
 * @param files   pinned published files whose names overlap the range
 * @param pending pinned pending batches overlapping the range
 * @param active  rows of the batch under construction
 */
public record Snapshot(List<FileEntry> files, List<PendingBatch> pending, Batch.Contents active) {

    public Snapshot {
        files = List.copyOf(files);
        pending = List.copyOf(pending);
    }
}
