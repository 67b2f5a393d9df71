package io.sluice.query;

import io.sluice.stream.CaptureBatch;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.CommandException;
import io.sluice.stream.DecodeSink;
import io.sluice.stream.PluginSettings;
import io.sluice.stream.QueryCommand;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.StreamPlugin;
import io.sluice.stream.raw.RawPlugin;
import java.util.concurrent.Semaphore;

/**
 * RAW under id 77, except that encoding on a writer thread takes a permit first, so a test decides
 * how many batches reach Parquet and can keep others queued in memory.
 */
final class GatedRawPlugin implements StreamPlugin {

    static final int ID = 77;

    private final Semaphore permits = new Semaphore(0);
    private final StreamCodec raw = new RawPlugin().open(PluginSettings.none("gated"));

    @Override
    public int id() {
        return ID;
    }

    @Override
    public String name() {
        return "gated";
    }

    /** Lets n more batches through the writer. */
    void allow(int batches) {
        permits.release(batches);
    }

    /** Lets every batch through from now on. */
    void open() {
        permits.release(Integer.MAX_VALUE / 2);
    }

    @Override
    public StreamCodec open(PluginSettings settings) {
        return new StreamCodec() {
            @Override
            public ColumnBatch encode(CaptureBatch batch) {
                if (Thread.currentThread().getName().endsWith("-writer")) {
                    permits.acquireUninterruptibly();
                }
                return raw.encode(batch);
            }

            @Override
            public QueryCommand parseCommand(String command) throws CommandException {
                return raw.parseCommand(command);
            }

            @Override
            public void decode(ColumnBatch rows, QueryCommand command, DecodeSink sink) {
                raw.decode(rows, command, sink);
            }
        };
    }
}
