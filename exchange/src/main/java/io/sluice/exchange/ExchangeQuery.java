package io.sluice.exchange;

import io.sluice.exchange.internal.FileEntry;
import io.sluice.exchange.internal.PendingBatch;
import io.sluice.exchange.internal.Snapshot;
import io.sluice.parquet.FileScan;
import io.sluice.parquet.ParquetStore;
import io.sluice.ringbus.Batch;
import io.sluice.stream.CaptureBatch;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.DecodeSink;
import io.sluice.stream.QueryCommand;
import io.sluice.stream.StreamCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A running query of one exchange: the merged read of its files, the batches waiting for the
 * writer, and the ring's batch, as of the instant the query started. Results come in key order,
 * with no record twice and none missing, even while batches move from memory to disk meanwhile:
 * the query reads the places one consistent view named, and what it reads is pinned so retention
 * cannot delete it underneath.
 *
 * <p>Results stream in bounded chunks ({@link FileScan#CHUNK_ROWS} rows or about
 * {@link FileScan#CHUNK_BYTES} bytes), whatever the range; data still in memory is encoded with
 * the exchange's plugin on the fly, so every place gives the same columns. {@link #nextChunk}
 * gives the rows, {@link #decodeNext} the plugin's decoded records.
 *
 * <p>One thread at a time. Close it (try-with-resources) to unpin what it holds.
 */
public final class ExchangeQuery implements AutoCloseable {

    private final String exchange;
    private final ParquetStore store;
    private final StreamCodec codec;
    private final QueryCommand command;
    private final List<String> columns;
    private final List<FileEntry> files;
    private final List<PendingBatch> pending;
    private final Batch.Contents active;
    private final AtomicLongArray counts;
    private int nextFile;
    private int nextPending;
    private boolean activeRead;
    private FileScan fileScan;
    private FileEntry fileEntry;
    private MemoryRows memory;
    private PendingBatch memoryOwner;
    private boolean closed;

    ExchangeQuery(String exchange, ParquetStore store, StreamCodec codec, QueryCommand command, Snapshot snapshot,
                  AtomicLongArray counts) {
        this.exchange = exchange;
        this.store = store;
        this.codec = codec;
        this.command = command;
        this.files = snapshot.files();
        this.pending = snapshot.pending();
        this.active = snapshot.active();
        this.counts = counts;
        if (command.readsAllColumns()) {
            this.columns = List.of();
        } else {
            List<String> wanted = new ArrayList<>();
            wanted.add(Column.TS.name());
            wanted.addAll(command.storedColumns());
            this.columns = List.copyOf(wanted);
        }
    }

    public QueryCommand command() {
        return command;
    }

    /**
     * The next chunk of rows with ts in the range: {@code ts} and the stored columns the command
     * names (all when it names none) that the data has. Null at the end.
     */
    public ColumnBatch nextChunk() throws IOException {
        if (closed) {
            throw new IllegalStateException("query of exchange " + exchange + " is closed");
        }
        try {
            return readChunk();
        } catch (IOException | RuntimeException e) {
            counts.incrementAndGet(ExchangeCounter.QUERY_ERRORS.ordinal());
            throw e;
        }
    }

    /**
     * Decodes the next chunk into the sink with the exchange's plugin.
     *
     * @return false when there are no more rows
     */
    public boolean decodeNext(DecodeSink sink) throws IOException {
        ColumnBatch chunk = nextChunk();
        if (chunk == null) {
            return false;
        }
        codec.decode(chunk, command, sink);
        return true;
    }

    private ColumnBatch readChunk() throws IOException {
        while (true) {
            if (fileScan != null) {
                ColumnBatch chunk = fileScan.next();
                if (chunk != null) {
                    return chunk;
                }
                finishFile();
                continue;
            }
            if (memory != null) {
                ColumnBatch chunk = memory.next();
                if (chunk != null) {
                    return chunk;
                }
                finishMemory();
                continue;
            }
            if (!openNextSource()) {
                return null;
            }
        }
    }

    private boolean openNextSource() throws IOException {
        if (nextFile < files.size()) {
            fileEntry = files.get(nextFile++);
            fileScan = store.scan(fileEntry.file(), command.start(), command.end(), columns);
            return true;
        }
        if (nextPending < pending.size()) {
            memoryOwner = pending.get(nextPending++);
            memory = new MemoryRows(memoryOwner.contents());
            return true;
        }
        if (!activeRead) {
            activeRead = true;
            memory = new MemoryRows(active);
            return true;
        }
        return false;
    }

    private void finishFile() throws IOException {
        try {
            fileScan.close();
        } finally {
            fileScan = null;
            fileEntry.unpin();
            fileEntry = null;
        }
    }

    private void finishMemory() {
        memory = null;
        if (memoryOwner != null) {
            memoryOwner.unpin();
            memoryOwner = null;
        }
    }

    /** Unpins everything this query still holds. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (fileScan != null) {
                finishFile();
            }
        } finally {
            finishMemory();
            for (int i = nextFile; i < files.size(); i++) {
                files.get(i).unpin();
            }
            for (int i = nextPending; i < pending.size(); i++) {
                pending.get(i).unpin();
            }
            nextFile = files.size();
            nextPending = pending.size();
        }
    }

    /** Rows of an in-memory batch in the query's range, encoded slice by slice. */
    private final class MemoryRows {
        private final Batch.Contents contents;
        private int position;
        private final int end;

        MemoryRows(Batch.Contents contents) {
            this.contents = contents;
            int[] range = contents.range(command.start(), command.end());
            this.position = range[0];
            this.end = range[1];
        }

        ColumnBatch next() {
            if (position >= end) {
                return null;
            }
            int to = position;
            long bytes = 0;
            while (to < end && to - position < FileScan.CHUNK_ROWS && bytes < FileScan.CHUNK_BYTES) {
                bytes += contents.payloads()[to].length + 16L;
                to++;
            }
            CaptureBatch slice = new CaptureBatch(contents.ts(), contents.offsets(), contents.topics(), contents.payloads(), position, to);
            position = to;
            ColumnBatch encoded = codec.encode(slice);
            return columns.isEmpty() ? encoded : encoded.project(columns);
        }
    }
}
