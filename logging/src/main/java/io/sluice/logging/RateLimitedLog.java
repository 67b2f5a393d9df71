package io.sluice.logging;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * The one log for events that may repeat without bound: refused connections and packets, lost
 * captures, a plugin failing on every batch, a disk refusing every write. It writes at most
 * {@code lines} lines per {@code interval}; the occurrences in between are counted and the count
 * is reported with the next line, so a storm of one problem neither floods the log nor hides how
 * big it was. Exact totals belong in counters; this only keeps the log readable.
 *
 * <p>Two ways to use it. For text that costs nothing to build, {@link #warn}, {@link #error} and
 * {@link #info} count the occurrence and write the line if the budget allows. For text that is
 * expensive to build (it names a payload, a file), ask first and build only when admitted:
 *
 * <pre>{@code
 * if (log.admit(1)) {
 *     log.write(Level.WARN, "offset " + offset + ": " + describe(payload), null);
 * }
 * }</pre>
 *
 * <p>Thread-safe and lock-free: the budget is a window start and a line count, both atomics.
 */
public final class RateLimitedLog {

    private final Logger log;
    private final String context;
    private final int lines;
    private final long intervalNanos;
    private final AtomicLong windowStart;
    private final AtomicLong linesInWindow = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();

    /**
     * @param log      where lines go
     * @param context  what every line is about, prefixed to it (for example {@code "exchange telemetry"}),
     *                 or null for none
     * @param lines    how many lines each interval may hold, at least 1
     * @param interval the length of the budget's window
     */
    public RateLimitedLog(Logger log, String context, int lines, Duration interval) {
        if (lines < 1) {
            throw new IllegalArgumentException("lines must be at least 1, got " + lines);
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive, got " + interval);
        }
        this.log = log;
        this.context = context;
        this.lines = lines;
        this.intervalNanos = interval.toNanos();
        this.windowStart = new AtomicLong(System.nanoTime() - intervalNanos);
    }

    /** One line per {@code interval}: for failures that repeat (the usual choice). */
    public static RateLimitedLog onePer(Logger log, String context, Duration interval) {
        return new RateLimitedLog(log, context, 1, interval);
    }

    /**
     * Counts {@code occurrences} and says whether a line may be written now. When it returns true
     * the caller writes exactly one line with {@link #write}; the line reports everything counted
     * and not yet reported.
     */
    public boolean admit(long occurrences) {
        if (occurrences <= 0) {
            return false;
        }
        suppressed.addAndGet(occurrences);
        long now = System.nanoTime();
        long start = windowStart.get();
        if (now - start >= intervalNanos && windowStart.compareAndSet(start, now)) {
            linesInWindow.set(0);
        }
        return linesInWindow.incrementAndGet() <= lines;
    }

    /**
     * Writes a line admitted by {@link #admit}, with the count of occurrences since the previous
     * line when there were others than this one.
     */
    public void write(Level level, String message, Throwable cause) {
        long count = suppressed.getAndSet(0);
        StringBuilder line = new StringBuilder(message.length() + 64);
        if (context != null) {
            line.append(context).append(": ");
        }
        line.append(message);
        if (count > 1) {
            line.append(" (").append(count - 1).append(" more since the last report)");
        }
        log.atLevel(level).setCause(cause).log(line.toString());
    }

    /** Whether occurrences are waiting to be reported: a caller that reports periodically flushes them with a line. */
    public boolean hasUnreported() {
        return suppressed.get() > 0;
    }

    /** Counts one occurrence and logs it at WARN if the budget allows. */
    public void warn(String message) {
        if (admit(1)) {
            write(Level.WARN, message, null);
        }
    }

    /** Counts one occurrence and logs it at INFO if the budget allows. */
    public void info(String message) {
        if (admit(1)) {
            write(Level.INFO, message, null);
        }
    }

    /** Counts one occurrence and logs it at ERROR, with the cause's stack trace, if the budget allows. */
    public void error(String message, Throwable cause) {
        if (admit(1)) {
            write(Level.ERROR, message, cause);
        }
    }
}
