package io.sluice.parquet;

import io.sluice.stream.ColumnBatch;

/**
 * One batch waiting to be written. The store calls {@link #encode} on its writer thread when it
 * writes the batch (so the plugin's work stays off the capture path) and again if a write has
 * to be retried.
 */
public interface StoreBatch {

    /**
     * The batch's rows as columns, with the key columns {@code ts} and {@code offset} in key order.
     * A RuntimeException means the batch can never be written; the store reports it to
     * {@link StoreListener#discarded} and goes on.
     */
    ColumnBatch encode();

    /** Whether the batch is held in memory: only those count against {@code queue_batches}. */
    boolean inMemory();

    /**
     * Bytes the batch holds in memory until its file is published; a file rolls once its batches
     * hold {@code file_size}. Zero for a batch read from disk.
     */
    default long memoryBytes() {
        return 0;
    }
}
