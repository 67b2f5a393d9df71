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
     * Bytes of the batch's rows kept outside Parquet until its file is published: in memory, or
     * in a write-ahead log that may be trimmed only behind published files. A file is published
     * once its batches hold {@code file_size} of them, which bounds that memory or log whatever
     * the rows compress to. Zero for a batch read back from disk.
     */
    default long heldBytes() {
        return 0;
    }

    /**
     * The batch is now a row group of the open file: the store needs its rows in memory no more
     * (should it have to write them again, it calls {@link #encode} again). Writer thread.
     */
    default void written() {
    }
}
