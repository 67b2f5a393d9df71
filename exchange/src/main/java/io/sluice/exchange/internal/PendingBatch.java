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
 * in memory; in a spill file; or in the exchange's write-ahead log (a batch of the ring under
 * {@code durability = wal}, one left there by fullOp FILE, or one found there at open). The
 * writer encodes it with the exchange's plugin; queries read it as it is.
 *
 * <p>A logged batch keeps its rows in memory too while they are of use there: a batch of the
 * ring until the writer has put it in the open file (it encodes from memory, and the log holds
 * the rows for queries until the file is published, so memory holds no second copy of a file's
 * rows meanwhile), one left in the log by fullOp FILE until the log holds it durably. Either way
 * only durable records can be read back from the log, so memory goes no earlier
 * ({@link #releaseMemory}). Without a log, a batch of the ring stays in memory until its file is
 * published. Either way its rows count towards {@code file_size} ({@link #heldBytes}).
 */
public final class PendingBatch extends Pinned implements StoreBatch {

    private final boolean ofRing;
    private final long heldBytes;
    private final SpilledBatch spilled;
    private final LoggedRange logged;
    private final StreamCodec codec;
    private final SpillDirectory spill;
    private final ExchangeLog log;
    private final Custody custody;
    /** The rows in memory, or null once only the log (or spill file) has them. */
    private volatile Batch held;
    /** Whether the rows wait in memory for the writer: a batch of the ring not yet in the open file. */
    private volatile boolean awaitingWriter;

    private PendingBatch(Batch held, boolean ofRing, SpilledBatch spilled, LoggedRange logged, StreamCodec codec,
                         SpillDirectory spill, ExchangeLog log, Custody custody) {
        this.held = held;
        this.ofRing = ofRing;
        this.heldBytes = ofRing ? held.bytes() : 0;
        this.awaitingWriter = ofRing;
        this.spilled = spilled;
        this.logged = logged;
        this.codec = codec;
        this.spill = spill;
        this.log = log;
        this.custody = custody;
    }

    /**
     * A batch the ring handed up to the writer.
     *
     * @param log the log that holds its rows (they were appended before the hand-up), or null
     */
    static PendingBatch ofRing(Batch sealed, StreamCodec codec, ExchangeLog log, Custody custody) {
        LoggedRange range = log == null ? null : LoggedRange.of(sealed.contents());
        return new PendingBatch(sealed, true, null, range, codec, null, log, custody);
    }

    static PendingBatch spilled(SpilledBatch spilled, StreamCodec codec, SpillDirectory spill, Custody custody) {
        return new PendingBatch(null, false, spilled, null, codec, spill, null, custody);
    }

    /**
     * A batch whose rows are the log's {@code range}, not handed to the writer from memory.
     *
     * @param sealed the rows in memory until they are durable in the log, or null (durable, or found at open)
     */
    static PendingBatch logged(Batch sealed, LoggedRange range, StreamCodec codec, ExchangeLog log, Custody custody) {
        return new PendingBatch(sealed, false, null, range, codec, null, log, custody);
    }

    /** The captured rows, from memory if it still holds them, else from the spill file or the log. */
    public Batch.Contents contents() throws IOException {
        Batch memory = held;
        if (memory != null) {
            return memory.contents();
        }
        return spilled != null ? spill.read(spilled) : log.read(logged);
    }

    /** The writer put the rows in the open file: a logged batch's rows may leave memory once durable in the log. */
    @Override
    public void written() {
        awaitingWriter = false;
        if (logged != null) {
            releaseMemory(log.highWatermark());
        }
    }

    /** Lets a logged batch's rows go from memory once the log's high watermark passed them and the writer is done with them; any thread. */
    void releaseMemory(long highWatermark) {
        if (logged != null && !awaitingWriter && logged.lastOffset() < highWatermark) {
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

    /** Only batches of the ring count against the writer's queue; spilled and logged ones are read from disk. */
    @Override
    public boolean inMemory() {
        return ofRing;
    }

    /** The bytes of a batch of the ring, which memory or the log keeps until its file is published. */
    @Override
    public long heldBytes() {
        return heldBytes;
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
        return logged != null ? logged.count() : spilled != null ? spilled.count() : held.size();
    }

    public long minTs() {
        return logged != null ? logged.minTs() : spilled != null ? spilled.minTs() : held.contents().minTs();
    }

    public long maxTs() {
        return logged != null ? logged.maxTs() : spilled != null ? spilled.maxTs() : held.contents().maxTs();
    }

    public long firstOffset() {
        return logged != null ? logged.firstOffset() : spilled != null ? spilled.firstOffset() : held.contents().firstOffset();
    }

    public long lastOffset() {
        return logged != null ? logged.lastOffset() : spilled != null ? spilled.lastOffset() : held.contents().lastOffset();
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
        String where = spilled != null ? "spilled batch " + spilled.path() : logged != null ? "logged batch" : "batch";
        return where + " of offsets " + firstOffset() + ".." + lastOffset();
    }
}
