package io.sluice.parquet.internal;

import java.util.ArrayDeque;

/**
 * The page buffers of one writer thread, reused file after file. A page buffer grows to the page
 * size (1 MiB, more for a large last value); allocating and growing one per column per file cost
 * the writer a fifth of its time and the heap a humongous object per page. Not thread-safe.
 */
public final class PageBufferPool {

    private final ArrayDeque<PageBuffer> free = new ArrayDeque<>();

    PageBuffer take() {
        PageBuffer buffer = free.poll();
        return buffer != null ? buffer : new PageBuffer();
    }

    void give(PageBuffer buffer) {
        buffer.reset();
        free.push(buffer);
    }
}
