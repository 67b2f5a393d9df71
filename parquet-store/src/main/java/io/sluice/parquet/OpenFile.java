package io.sluice.parquet;

import io.sluice.parquet.internal.BatchFileWriter;
import io.sluice.parquet.internal.RowGroupJournal;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.Schema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.Path;

/**
 * The file the writer thread is filling: its temporary path, its Parquet writer, the optional
 * row-group journal, the batches written into it so far (handed to the listener when it is
 * published) and what decides when it rolls. Writer thread only.
 */
final class OpenFile {

    private final long seq;
    private final Path temp;
    private final Schema schema;
    private final BatchFileWriter writer;
    private final RowGroupJournal journal;
    private final long openedNanos;
    private final List<StoreBatch> sources = new ArrayList<>();
    private long heldBytes;

    OpenFile(long seq, Path temp, Schema schema, BatchFileWriter writer, RowGroupJournal journal, long openedNanos) {
        this.seq = seq;
        this.temp = temp;
        this.schema = schema;
        this.writer = writer;
        this.journal = journal;
        this.openedNanos = openedNanos;
    }

    long seq() {
        return seq;
    }

    Path temp() {
        return temp;
    }

    BatchFileWriter writer() {
        return writer;
    }

    /** The journal, or null when none is kept. */
    RowGroupJournal journal() {
        return journal;
    }

    /** The batches written into the file, in order. */
    List<StoreBatch> sources() {
        return sources;
    }

    /** Writes a batch as the file's next row group(s). */
    void write(StoreBatch source, ColumnBatch columns) throws IOException {
        writer.write(columns);
        sources.add(source);
        heldBytes += source.heldBytes();
    }

    /** Whether the file reached {@code fileSize}, on disk or in the rows its batches keep in memory or in the log. */
    boolean isFull(long fileSize) throws IOException {
        return writer.dataSize() >= fileSize || heldBytes >= fileSize;
    }

    /**
     * When the file is due by age, on the {@code System.nanoTime} scale: once its first row is
     * {@code rollNanos} old by the wall clock, so that a file rewritten from the write-ahead log
     * after a restart keeps the age of its rows (were the age counted from the opening, a broker
     * restarted more often than the interval would never publish, and never trim its log); and
     * never later than {@code rollNanos} after the opening, should the wall clock step back.
     */
    long rollDeadline(long rollNanos, long nowNanos, long nowMillis) {
        long byOpening = openedNanos + rollNanos;
        if (writer.rows() == 0) {
            return byOpening;
        }
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, nowMillis - writer.minTs()));
        long byFirstRow = ageNanos >= rollNanos ? nowNanos : nowNanos + rollNanos - ageNanos;
        return byFirstRow - byOpening < 0 ? byFirstRow : byOpening;
    }

    /**
     * Whether a batch of this schema can go into the file: each of its columns is in the file with
     * the same type (nullable in the file if nullable in the batch), and it has each required column.
     */
    boolean fits(Schema batch) {
        for (Column column : batch.columns()) {
            if (!schema.contains(column.name())) {
                return false;
            }
            Column mine = schema.column(column.name());
            if (mine.type() != column.type() || (column.nullable() && !mine.nullable())) {
                return false;
            }
        }
        for (Column mine : schema.columns()) {
            if (!mine.nullable() && !batch.contains(mine.name())) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "file " + temp + " (" + sources.size() + " batches, " + writer.rows() + " rows)";
    }
}
