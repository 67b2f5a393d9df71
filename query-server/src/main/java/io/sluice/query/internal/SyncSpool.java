package io.sluice.query.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Assembles a {@code sync} reply, which the protocol sends as one data frame, without holding it
 * on the heap. The first frame's worth stays in memory (most sync replies are small); once the
 * reply outgrows it, everything goes to a spool file {@code sluice-sync-<exchange>-<random>.spool}
 * in {@code spool_dir}, which is then memory-mapped and handed to ZeroMQ as one frame without a
 * copy. The file is unlinked as soon as it is mapped, so a finished reply leaves nothing on disk;
 * its pages are freed when ZeroMQ has sent the frame and the mapping is garbage-collected. A
 * reply that would exceed {@code max_sync_bytes} stops with {@link ReplyStopped.Reason#TOO_LARGE}.
 * Spool files left by a crash are deleted when the exchange's server opens.
 *
 * <p>One reply, on the query server's thread.
 */
public final class SyncSpool implements FrameWriter.Target, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SyncSpool.class);

    private final String exchange;
    private final Path dir;
    private final int maxBytes;
    private ByteBuffer first;
    private FileChannel file;
    private Path path;
    private long bytes;

    public SyncSpool(String exchange, Path dir, int maxBytes) {
        this.exchange = exchange;
        this.dir = dir;
        this.maxBytes = maxBytes;
    }

    /** Deletes spool files a crashed process left for this exchange in {@code dir}. */
    public static void deleteLeftovers(String exchange, Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> stale = Files.newDirectoryStream(dir, prefix(exchange) + "*.spool")) {
            for (Path each : stale) {
                Files.deleteIfExists(each);
                LOG.info("query server of exchange {}: deleted sync spool file {} left by an earlier run", exchange, each);
            }
        } catch (IOException e) {
            LOG.warn("query server of exchange {}: cannot clean sync spool files in {}: {}", exchange, dir, e.toString());
        }
    }

    private static String prefix(String exchange) {
        return "sluice-sync-" + exchange + "-";
    }

    @Override
    public void frame(ByteBuffer frame, boolean owned) {
        bytes += frame.remaining();
        if (bytes > maxBytes) {
            throw new ReplyStopped(ReplyStopped.Reason.TOO_LARGE, "the sync reply exceeds max_sync_bytes (" + maxBytes + " bytes)");
        }
        try {
            if (file == null && first == null) {
                first = owned ? frame : copy(frame);
                return;
            }
            if (file == null) {
                open();
                write(first);
                first = null;
            }
            write(frame);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spool the sync reply of exchange " + exchange + " to " + (path == null ? dir : path)
                    + " at byte " + bytes + ": " + e.getMessage(), e);
        }
    }

    private static ByteBuffer copy(ByteBuffer frame) {
        ByteBuffer copy = ByteBuffer.allocate(frame.remaining());
        copy.put(frame).flip();
        return copy;
    }

    private void open() throws IOException {
        Files.createDirectories(dir);
        path = Files.createTempFile(dir, prefix(exchange), ".spool");
        file = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.DELETE_ON_CLOSE);
    }

    private void write(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            file.write(buffer);
        }
    }

    /** Bytes in the reply so far. */
    public long bytes() {
        return bytes;
    }

    /**
     * The whole reply as one buffer: in memory when it fits one frame, else the mapped spool
     * file. Nothing may be added afterwards.
     */
    public ByteBuffer reply() throws IOException {
        if (file == null) {
            return first == null ? ByteBuffer.allocate(0) : first;
        }
        MappedByteBuffer mapped = file.map(FileChannel.MapMode.READ_ONLY, 0, bytes);
        close();
        return mapped;
    }

    /** Closes and so deletes the spool file; a mapping taken before stays valid. */
    @Override
    public void close() throws IOException {
        if (file != null) {
            FileChannel open = file;
            file = null;
            open.close();
        }
    }
}
