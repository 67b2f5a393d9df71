package io.sluice.broker.connection;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs refused connections, dropped packets and forced disconnects, each with client id,
 * address and reason, but at most {@link #LINES_PER_SECOND} lines a second: a misbehaving
 * fleet must not turn the log into the bottleneck. Lines over the budget are counted and the
 * count is reported with the next line that gets through. Thread-safe and lock-free.
 */
public final class RefusalLog {
    static final int LINES_PER_SECOND = 20;
    private static final Logger LOG = LoggerFactory.getLogger("io.sluice.broker.refusals");

    private static final AtomicLong window = new AtomicLong();
    private static final AtomicLong linesInWindow = new AtomicLong();
    private static final AtomicLong suppressed = new AtomicLong();

    private RefusalLog() {
    }

    /** Logs one line unless this second's budget is spent; {@code format} is an SLF4J pattern. */
    public static void log(String format, Object... args) {
        long second = System.nanoTime() / 1_000_000_000L;
        long current = window.get();
        if (current != second && window.compareAndSet(current, second)) {
            linesInWindow.set(0);
        }
        if (linesInWindow.incrementAndGet() > LINES_PER_SECOND) {
            suppressed.incrementAndGet();
            return;
        }
        long skipped = suppressed.getAndSet(0);
        if (skipped > 0) {
            LOG.info("({} similar lines suppressed in the last second)", skipped);
        }
        LOG.info(format, args);
    }
}
