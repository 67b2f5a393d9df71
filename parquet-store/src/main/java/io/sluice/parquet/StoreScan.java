package io.sluice.parquet;

import io.sluice.stream.ColumnBatch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams the rows of several files whose ts is in [start, end], file after file in seq (key)
 * order; files whose names say they hold no such key are never opened. One thread at a time.
 */
public final class StoreScan implements AutoCloseable {

    private final ParquetStore store;
    private final List<StoredFile> files = new ArrayList<>();
    private final long start;
    private final long end;
    private final List<String> columns;
    private int next;
    private FileScan current;

    StoreScan(ParquetStore store, List<StoredFile> files, long start, long end, List<String> columns) {
        this.store = store;
        this.start = start;
        this.end = end;
        this.columns = List.copyOf(columns);
        for (StoredFile file : files) {
            if (file.overlaps(start, end)) {
                this.files.add(file);
            }
        }
    }

    /** The files the names left to read. */
    public List<StoredFile> files() {
        return List.copyOf(files);
    }

    /** The next chunk, or null at the end. */
    public ColumnBatch next() throws IOException {
        while (true) {
            if (current == null) {
                if (next == files.size()) {
                    return null;
                }
                current = store.scan(files.get(next++), start, end, columns);
            }
            ColumnBatch chunk = current.next();
            if (chunk != null) {
                return chunk;
            }
            current.close();
            current = null;
        }
    }

    @Override
    public void close() throws IOException {
        if (current != null) {
            current.close();
            current = null;
        }
    }
}
