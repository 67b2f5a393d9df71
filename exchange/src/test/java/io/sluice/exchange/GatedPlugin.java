package io.sluice.exchange;

import io.sluice.stream.CaptureBatch;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.CommandException;
import io.sluice.stream.DecodeSink;
import io.sluice.stream.PluginSettings;
import io.sluice.stream.QueryCommand;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.StreamPlugin;
import io.sluice.stream.raw.RawPlugin;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * RAW under id 77, except that encoding on a writer thread takes a permit first, so a test decides
 * how many batches the writer may write and can fill its queue to watch fullOp act. It can also
 * fail on purpose, or kill the writer thread with an {@link Error}. The query server's tests use it too, to keep batches in memory.
 */
public final class GatedPlugin implements StreamPlugin {

    public static final int ID = 77;

    final Semaphore permits = new Semaphore(0);
    final CountDownLatch writerWaiting = new CountDownLatch(1);
    volatile boolean failEncoding;
    /** Encodings on the writer thread that throw an {@link Error}, killing the writer thread, before they work again. */
    final AtomicInteger writerKills = new AtomicInteger();
    private final StreamCodec raw = new RawPlugin().open(PluginSettings.none("gated"));

    @Override
    public int id() {
        return ID;
    }

    @Override
    public String name() {
        return "gated";
    }

    /** Lets every batch through from now on. */
    public void open() {
        permits.release(Integer.MAX_VALUE / 2);
    }

    /** Lets n more batches through. */
    public void allow(int batches) {
        permits.release(batches);
    }

    @Override
    public StreamCodec open(PluginSettings settings) {
        return new StreamCodec() {
            @Override
            public ColumnBatch encode(CaptureBatch batch) {
                if (Thread.currentThread().getName().endsWith("-writer")) {
                    writerWaiting.countDown();
                    try {
                        permits.acquire();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    if (failEncoding) {
                        throw new IllegalStateException("encoding fails on purpose");
                    }
                    if (writerKills.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        throw new KillsTheWriter();
                    }
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

    /** What a plugin bug that is not an exception looks like to the writer thread. */
    static final class KillsTheWriter extends Error {
        KillsTheWriter() {
            super("the plugin kills the writer thread on purpose");
        }
    }
}
