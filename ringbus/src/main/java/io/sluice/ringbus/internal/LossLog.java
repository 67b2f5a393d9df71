package io.sluice.ringbus.internal;

import io.sluice.logging.RateLimitedLog;
import io.sluice.ringbus.RingCounter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * Makes one ring's losses visible in the log without flooding it, on two {@link RateLimitedLog}s:
 * at most one WARN per interval saying how many messages were rejected, dropped or spilled since
 * the previous one, by kind and with totals, and at most one ERROR with a stack trace per interval
 * for unexpected failures (the line after says how many were not logged).
 *
 * <p>The counters are the truth: each loss counted there is an occurrence of the summary log
 * once {@link #maybeReport} notices it, and each summary line reports every counter's growth
 * since the previous line. Thread-safe: the ring thread reports after every Disruptor batch and
 * when idle (which also writes losses held back by the budget), offering threads when the ring
 * is full (so losses show while the ring thread waits for the writer).
 */
public final class LossLog {

    /** How often each of the two logs may write a line. */
    public static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final RingCounter[] REPORTED = {
        RingCounter.REJECTED_RING_FULL, RingCounter.REJECTED_BATCH_FULL, RingCounter.REJECTED_CLOSED,
        RingCounter.REJECTED_UNLOGGED, RingCounter.DROPPED, RingCounter.SPILLED, RingCounter.SPILL_FAILURES, RingCounter.HANDLER_ERRORS,
    };

    private final AtomicLongArray counts;
    private final RateLimitedLog losses;
    private final RateLimitedLog errors;
    /** The sum of the reported counters as last counted into {@link #losses}. */
    private final AtomicLong noted = new AtomicLong();
    /** Each reported counter's value as of the last summary line; only ever grows. */
    private final AtomicLongArray reported = new AtomicLongArray(RingCounter.values().length);

    /**
     * @param log      where lines go
     * @param exchange the exchange's name, which every line starts with
     * @param counts   the ring's counters, indexed by {@link RingCounter#ordinal()}
     * @param interval how often each kind of line may be written
     */
    public LossLog(Logger log, String exchange, AtomicLongArray counts, Duration interval) {
        this.counts = counts;
        this.losses = RateLimitedLog.onePer(log, "exchange " + exchange, interval);
        this.errors = RateLimitedLog.onePer(log, "exchange " + exchange, interval);
    }

    /** Counts the losses since the last call and writes a summary if one is due (also for losses held back before). */
    public void maybeReport() {
        if (losses.admit(fresh())) {
            summarize();
        }
    }

    /** Writes whatever was not reported yet, due or not (at close). */
    public void flush() {
        losses.admit(fresh());
        summarize();
    }

    /** Logs an unexpected failure with its stack trace, at most once per interval. */
    public void error(String what, Throwable cause) {
        errors.error(what, cause);
    }

    /** Losses counted since the last call (by any thread). */
    private long fresh() {
        long total = total();
        if (total == noted.get()) {
            return 0;
        }
        long before = noted.getAndAccumulate(total, Math::max);
        return Math.max(0, total - before);
    }

    /** One line with each counter's growth since the previous line; none if no counter grew. */
    private void summarize() {
        StringBuilder line = new StringBuilder();
        long sum = 0;
        for (RingCounter counter : REPORTED) {
            long now = counts.get(counter.ordinal());
            long delta = now - reported.getAndAccumulate(counter.ordinal(), now, Math::max);
            sum += now;
            if (delta > 0) {
                line.append(line.length() == 0 ? "" : ", ").append(delta).append(' ').append(counter.help())
                        .append(" (total ").append(now).append(')');
            }
        }
        noted.accumulateAndGet(sum, Math::max); // what the line reported is not counted again
        if (line.length() > 0) {
            losses.writeSummary(Level.WARN, line.toString());
        }
    }

    private long total() {
        long sum = 0;
        for (RingCounter counter : REPORTED) {
            sum += counts.get(counter.ordinal());
        }
        return sum;
    }
}
