package io.sluice.logging;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * The one log for events that may repeat without bound: refused connections and packets, lost
 * captures, a plugin failing on every batch, a disk refusing every write. It writes at most
 * {@code lines} lines at once and {@code lines} per {@code interval} on average; the occurrences
 * it does not write are counted and the count goes out with the next line, so a storm of one
 * problem neither floods the log nor hides how big it was. Exact totals belong in counters; this
 * only keeps the log readable.
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
 * <p>A caller whose line sums up every occurrence itself (counts by kind, say) writes it with
 * {@link #writeSummary}, and reports what is left over periodically with {@code admit(0)}.
 *
 * <p>Thread-safe and lock-free. The budget is a generic cell rate algorithm on one atomic: each
 * line moves a clock {@code interval / lines} ahead of the later of itself and now, and a line
 * is admitted while that clock stays within one {@code interval} of now. A refused occurrence
 * costs one atomic add and a read.
 */
public final class RateLimitedLog {

    private final Logger log;
    private final String prefix;
    private final long spacingNanos;
    private final long intervalNanos;
    /** The budget's clock (System.nanoTime): when the lines admitted so far are paid off. */
    private final AtomicLong paidUntil;
    /** Occurrences counted and neither written nor stood for by a line. */
    private final AtomicLong unreported = new AtomicLong();
    /** Whether a line was written: the count in the first one is not "since the last report". */
    private volatile boolean reported;

    /**
     * @param log      where lines go
     * @param context  what every line is about, prefixed to it with ": " (for example
     *                 {@code "exchange telemetry"}), or null for none
     * @param lines    how many lines may be written at once, and per {@code interval}; at least 1
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
        this.prefix = context == null ? "" : context + ": ";
        this.intervalNanos = interval.toNanos();
        this.spacingNanos = Math.max(1, intervalNanos / lines);
        this.paidUntil = new AtomicLong(System.nanoTime());
    }

    /** One line per {@code interval}: for failures that repeat (the usual choice). */
    public static RateLimitedLog onePer(Logger log, String context, Duration interval) {
        return new RateLimitedLog(log, context, 1, interval);
    }

    /**
     * Counts {@code occurrences} and says whether a line may be written now. When it returns true
     * the caller writes exactly one line, with {@link #write} (the line stands for one of the
     * occurrences, and reports how many others were not written) or {@link #writeSummary}.
     * {@code admit(0)} counts nothing and asks whether occurrences not written yet may be now.
     */
    public boolean admit(long occurrences) {
        if (occurrences < 0) {
            throw new IllegalArgumentException("occurrences must not be negative, got " + occurrences);
        }
        if (occurrences == 0 && unreported.get() == 0) {
            return false;
        }
        if (takeLine(System.nanoTime())) {
            if (occurrences > 1) {
                unreported.addAndGet(occurrences - 1); // the line stands for one of them
            }
            return true;
        }
        if (occurrences > 0) {
            unreported.addAndGet(occurrences);
        }
        return false;
    }

    private boolean takeLine(long now) {
        while (true) {
            long paid = paidUntil.get();
            long next = (paid - now > 0 ? paid : now) + spacingNanos;
            if (next - now > intervalNanos) {
                return false;
            }
            if (paidUntil.compareAndSet(paid, next)) {
                return true;
            }
        }
    }

    /**
     * Writes a line admitted by {@link #admit}: the context, the message, and, when occurrences
     * went unwritten since the previous line, how many.
     */
    public void write(Level level, String message, Throwable cause) {
        long others = unreported.getAndSet(0);
        String line = others == 0 ? prefix + message
                : prefix + message + " (and " + others + (reported ? " more since the last report)" : " more)");
        reported = true;
        log.atLevel(level).setCause(cause).log(line);
    }

    /** Writes a line admitted by {@link #admit} that itself reports every occurrence counted so far. */
    public void writeSummary(Level level, String summary) {
        unreported.set(0);
        reported = true;
        log.atLevel(level).log(prefix + summary);
    }

    /** Whether occurrences are counted and not written yet: a caller that reports periodically flushes them. */
    public boolean hasUnreported() {
        return unreported.get() > 0;
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
