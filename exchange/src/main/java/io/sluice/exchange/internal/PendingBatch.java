package io.sluice.exchange.internal;

import io.sluice.parquet.StoreBatch;
import io.sluice.ringbus.Batch;
import io.sluice.ringbus.SpillDirectory;
import io.sluice.ringbus.SpilledBatch;
import io.sluice.stream.CaptureBatch;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.StreamCodec;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A batch handed up by the ring and not yet in a published file, in one of three places: sealed
 * in memory; in a spill file; or in the exchange's write-ahead log (left there by fullOp FILE, or
 * found there at open). The writer encodes it with the exchange's plugin; queries read it as it is.
 *
 * <p>A batch left in the log keeps its rows in memory too until the log holds them durably (only
 * durable records can be read back), then lets them go ({@link #releaseMemory}).
 */
public final class PendingBatch extends Pinned implements StoreBatch {

    private final Batch batch;
    private final SpilledBatch spilled;
    private final LoggedRange logged;
    private final StreamCodec codec;
    private final SpillDirectory spill;
    private final ExchangeLog log;
    private final Custody custody;
    /** Rows of a logged batch still held in memory, until they are durable in the log; else null. */
    private volatile Batch held;

    private PendingBatch(Batch batch, SpilledBatch spilled, LoggedRange logged, StreamCodec codec, SpillDirectory spill,
                         ExchangeLog log, Custody custody) {
        this.batch = batch;
        this.spilled = spilled;
        this.logged = logged;
        this.codec = codec;
        this.spill = spill;
        this.log = log;
        this.custody = custody;
    }

    static PendingBatch inMemory(Batch sealed, StreamCodec codec, Custody custody) {
        return new PendingBatch(sealed, null, null, codec, null, null, custody);
    }

    static PendingBatch spilled(SpilledBatch spilled, StreamCodec codec, SpillDirectory spill, Custody custody) {
        return new PendingBatch(null, spilled, null, codec, spill, null, custody);
    }

    /**
     * A batch whose rows are the log's {@code range}.
     *
     * @param sealed the rows in memory until they are durable in the log, or null (found at open)
     */
    static PendingBatch logged(Batch sealed, LoggedRange range, StreamCodec codec, ExchangeLog log, Custody custody) {
        PendingBatch pending = new PendingBatch(null, null, range, codec, null, log, custody);
        pending.held = sealed;
        return pending;
    }

    /** The captured rows, read from the spill file or the log if they are not in memory. */
    public Batch.Contents contents() throws IOException {
        if (batch != null) {
            return batch.contents();
        }
        if (spilled != null) {
            return spill.read(spilled);
        }
        Batch memory = held;
        return memory != null ? memory.contents() : log.read(logged);
    }

    /** Lets a logged batch's rows go from memory once the log's high watermark passed them; any thread. */
    void releaseMemory(long highWatermark) {
        if (logged != null && logged.lastOffset() < highWatermark) {
            held = null;
        }
    }

    /** The writer's encoding of the batch, the one in which the plugin counts what it finds. */
    @Override
    public ColumnBatch encode() {
        try {
            Batch.Contents c = contents();
            return codec.encode(capture(c, 0, c.size()).forWrite());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + this, e);
        }
    }

    static CaptureBatch capture(Batch.Contents c, int from, int to) {
        return new CaptureBatch(c.ts(), c.offsets(), c.topics(), c.payloads(), from, to);
    }

    /** Only batches of the ring held in memory count against the writer's queue; spilled and logged ones do not. */
    @Override
    public boolean inMemory() {
        return batch != null;
    }

    /** The bytes of a batch of the ring held in memory; a spilled or logged batch is read from disk. */
    @Override
    public long memoryBytes() {
        return batch != null ? batch.bytes() : 0;
    }

    /** The spill file, or null for a batch in memory or in the log. */
    public SpilledBatch spilledBatch() {
        return spilled;
    }

    /** The log's range, or null for a batch in memory or in a spill file. */
    public LoggedRange loggedRange() {
        return logged;
    }

    public int rows() {
        return batch != null ? batch.size() : spilled != null ? spilled.count() : logged.count();
    }

    public long minTs() {
        return batch != null ? batch.contents().minTs() : spilled != null ? spilled.minTs() : logged.minTs();
    }

    public long maxTs() {
        return batch != null ? batch.contents().maxTs() : spilled != null ? spilled.maxTs() : logged.maxTs();
    }

    public long firstOffset() {
        return batch != null ? batch.contents().firstOffset() : spilled != null ? spilled.firstOffset() : logged.firstOffset();
    }

    public long lastOffset() {
        return batch != null ? batch.contents().lastOffset() : spilled != null ? spilled.lastOffset() : logged.lastOffset();
    }

    /** Whether the batch may hold keys in [start, end]. */
    boolean overlaps(long start, long end) {
        return maxTs() >= start && minTs() <= end;
    }

    @Override
    void onRelease() {
        if (spilled != null) {
            custody.deleteSpill(spilled);
        } else if (logged != null) {
            custody.leftLog(this);
        }
    }

    @Override
    public String toString() {
        String where = batch != null ? "batch" : spilled != null ? "spilled batch " + spilled.path() : "logged batch";
        return where + " of offsets " + firstOffset() + ".." + lastOffset();
    }
}
