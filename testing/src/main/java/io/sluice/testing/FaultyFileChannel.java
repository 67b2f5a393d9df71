package io.sluice.testing;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real file channel that fails on demand, for fault-injection tests: while {@link Faults#failWrites}
 * is set a write stores part of its bytes and then fails as a full disk does ("No space left on
 * device"), and while {@link Faults#failForce} is set an fsync fails as a broken disk's does
 * ("Input/output error"). While {@link Faults#writeError} is set, a write throws that error
 * instead, as an unexpected failure would (the {@link InternalError} of a faulting memory-mapped
 * write, say), for code that must survive more than an {@link IOException}.
 * {@link Faults#writeDelayMillis} makes every write wait first, as on a slow disk, which holds open
 * the window between a change and its record reaching the file (for crash tests that must kill a
 * process inside it). Everything else goes to the real channel.
 */
public final class FaultyFileChannel extends FileChannel {

    /** The switches, shared by every channel a test opens, and what they caused. */
    public static final class Faults {
        public volatile boolean failWrites;
        public volatile boolean failForce;
        public volatile long writeDelayMillis;
        public volatile Error writeError;
        public final AtomicInteger writesFailed = new AtomicInteger();
        public final AtomicInteger forcesFailed = new AtomicInteger();
    }

    private final FileChannel delegate;
    private final Faults faults;

    public FaultyFileChannel(FileChannel delegate, Faults faults) {
        this.delegate = delegate;
        this.faults = faults;
    }

    /** Writes up to half of {@code src} (a torn write), then fails. */
    private IOException diskFull(ByteBuffer src, long position) throws IOException {
        int half = src.remaining() / 2;
        if (half > 0) {
            ByteBuffer part = src.duplicate();
            part.limit(part.position() + half);
            delegate.write(part, position);
            src.position(src.position() + half);
        }
        faults.writesFailed.incrementAndGet();
        return new IOException("No space left on device");
    }

    /** Throws {@link Faults#writeError}, if set, counted as a failed write. */
    private void unexpectedError() {
        Error error = faults.writeError;
        if (error != null) {
            faults.writesFailed.incrementAndGet();
            throw error;
        }
    }

    /** Waits {@link Faults#writeDelayMillis} before a write, if set. */
    private void slowDisk() throws IOException {
        long delay = faults.writeDelayMillis;
        if (delay > 0) {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while delaying a write by " + delay + " ms");
            }
        }
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        slowDisk();
        unexpectedError();
        if (faults.failWrites) {
            throw diskFull(src, position);
        }
        return delegate.write(src, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        slowDisk();
        unexpectedError();
        if (faults.failWrites) {
            long at = delegate.position();
            IOException e = diskFull(src, at);
            delegate.position(at + src.position());
            throw e;
        }
        return delegate.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        slowDisk();
        unexpectedError();
        if (faults.failWrites) {
            faults.writesFailed.incrementAndGet();
            throw new IOException("No space left on device");
        }
        return delegate.write(srcs, offset, length);
    }

    @Override
    public void force(boolean metaData) throws IOException {
        if (faults.failForce) {
            faults.forcesFailed.incrementAndGet();
            throw new IOException("Input/output error");
        }
        delegate.force(metaData);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return delegate.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return delegate.read(dst, position);
    }

    @Override
    public long position() throws IOException {
        return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        delegate.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return delegate.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        delegate.truncate(size);
        return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        unexpectedError();
        if (faults.failWrites) {
            faults.writesFailed.incrementAndGet();
            throw new IOException("No space left on device");
        }
        return delegate.transferFrom(src, position, count);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        delegate.close();
    }
}
