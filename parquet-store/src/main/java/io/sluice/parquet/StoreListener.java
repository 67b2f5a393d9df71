package io.sluice.parquet;

import java.util.List;

/** Learns what the writer thread did; every method runs on the writer thread. */
public interface StoreListener {

    /**
     * A file was published (renamed to its final name, durable). Its batches, in order, are no
     * longer the store's business. The retired files left the catalog by retention; the listener
     * deletes each with {@link ParquetStore#delete} once no reader uses it.
     */
    void published(StoredFile file, List<StoreBatch> batches, List<StoredFile> retired);

    /**
     * Retention retired files by age ({@code retention}); the listener deletes each with
     * {@link ParquetStore#delete} once no reader uses it.
     */
    void expired(List<StoredFile> retired);

    /** A batch could not be encoded (a plugin failure) and is not written; the listener reports it. */
    void discarded(StoreBatch batch, RuntimeException cause);

    /**
     * At close, batches that could not be written after retries (the directory is unavailable);
     * the listener may still save them elsewhere.
     */
    void unwritten(List<StoreBatch> batches, Exception cause);
}
