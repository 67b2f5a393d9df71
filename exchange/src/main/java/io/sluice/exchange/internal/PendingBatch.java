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
 * A batch handed up by the ring and not yet in a published file: sealed in memory, or spilled to
 * a spill file. The writer encodes it with the exchange's plugin; queries read it as it is.
 */
public final class PendingBatch extends Pinned implements StoreBatch {

    private final Batch batch;
    private final SpilledBatch spilled;
    private final StreamCodec codec;
    private final SpillDirectory spill;
    private final Custody custody;

    private PendingBatch(Batch batch, SpilledBatch spilled, StreamCodec codec, SpillDirectory spill, Custody custody) {
        this.batch = batch;
        this.spilled = spilled;
        this.codec = codec;
        this.spill = spill;
        this.custody = custody;
    }

    static PendingBatch inMemory(Batch sealed, StreamCodec codec, Custody custody) {
        return new PendingBatch(sealed, null, codec, null, custody);
    }

    static PendingBatch spilled(SpilledBatch spilled, StreamCodec codec, SpillDirectory spill, Custody custody) {
        return new PendingBatch(null, spilled, codec, spill, custody);
    }

    /** The captured rows, read from the spill file if spilled. */
    public Batch.Contents contents() throws IOException {
        return batch != null ? batch.contents() : spill.read(spilled);
    }

    /** The writer's encoding of the batch, the one in which the plugin counts what it finds. */
    @Override
    public ColumnBatch encode() {
        try {
            Batch.Contents c = contents();
            return codec.encode(capture(c, 0, c.size()).forWrite());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read spilled batch " + spilled.path(), e);
        }
    }

    static CaptureBatch capture(Batch.Contents c, int from, int to) {
        return new CaptureBatch(c.ts(), c.offsets(), c.topics(), c.payloads(), from, to);
    }

    @Override
    public boolean inMemory() {
        return batch != null;
    }

    /** The spill file, or null for a batch in memory. */
    public SpilledBatch spilledBatch() {
        return spilled;
    }

    public int rows() {
        return batch != null ? batch.size() : spilled.count();
    }

    public long minTs() {
        return batch != null ? batch.contents().minTs() : spilled.minTs();
    }

    public long maxTs() {
        return batch != null ? batch.contents().maxTs() : spilled.maxTs();
    }

    public long firstOffset() {
        return batch != null ? batch.contents().firstOffset() : spilled.firstOffset();
    }

    public long lastOffset() {
        return batch != null ? batch.contents().lastOffset() : spilled.lastOffset();
    }

    /** Whether the batch may hold keys in [start, end]. */
    boolean overlaps(long start, long end) {
        return maxTs() >= start && minTs() <= end;
    }

    @Override
    void onRelease() {
        if (spilled != null) {
            custody.deleteSpill(spilled);
        }
    }

    @Override
    public String toString() {
        return (batch != null ? "batch" : "spilled batch " + spilled.path()) + " of offsets " + firstOffset() + ".." + lastOffset();
    }
}
