package io.sluice.ringbus.internal;

import io.sluice.ringbus.RingCounter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes losses visible in the log without flooding it: at most one WARN per interval with how
 * many messages were rejected, dropped or spilled since the previous one, and at most one ERROR
 * with a stack trace per interval for unexpected failures (the rest are counted and summed into
 * the next). Thread-safe: the ring thread and offering threads both report.
 */
public final class LossLog {

    private static final Logger LOG = LoggerFactory.getLogger("io.sluice.ringbus.Ring");
    static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final RingCounter[] REPORTED = {
        RingCounter.REJECTED_RING_FULL, RingCounter.REJECTED_BATCH_FULL, RingCounter.REJECTED_CLOSED,
        RingCounter.REJECTED_UNLOGGED, RingCounter.DROPPED, RingCounter.SPILLED, RingCounter.SPILL_FAILURES, RingCounter.HANDLER_ERRORS,
    };

    private final String exchange;
    private final AtomicLongArray counts;
    private final long[] reported = new long[RingCounter.values().length];
    private volatile long reportedTotal;
    private volatile long nextReportNanos;
    private volatile long nextErrorNanos;
    private long suppressedErrors;

    public LossLog(String exchange, AtomicLongArray counts) {
        this.exchange = exchange;
        this.counts = counts;
        long now = System.nanoTime();
        this.nextReportNanos = now - INTERVAL_NANOS;
        this.nextErrorNanos = now - INTERVAL_NANOS;
    }

    /** Logs the counts of lost and spilled messages since the last report, if any and if due. */
    public void maybeReport(long nowNanos) {
        if (nowNanos - nextReportNanos >= 0 && total() != reportedTotal) {
            report(nowNanos, false);
        }
    }

    /** Logs whatever was not reported yet, due or not (at close). */
    public void flush() {
        report(System.nanoTime(), true);
    }

    private void report(long nowNanos, boolean force) {
        long total = total();
        synchronized (this) {
            if ((!force && nowNanos - nextReportNanos < 0) || total == reportedTotal) {
                return;
            }
            StringBuilder line = new StringBuilder();
            for (RingCounter counter : REPORTED) {
                long now = counts.get(counter.ordinal());
                long delta = now - reported[counter.ordinal()];
                reported[counter.ordinal()] = now;
                if (delta > 0) {
                    line.append(line.length() == 0 ? "" : ", ").append(delta).append(' ').append(counter.help())
                            .append(" (total ").append(now).append(')');
                }
            }
            reportedTotal = total;
            nextReportNanos = nowNanos + INTERVAL_NANOS;
            LOG.warn("exchange {}: {}", exchange, line);
        }
    }

    /** Logs an unexpected failure with its stack trace, at most once per interval. */
    public void error(String what, Throwable cause) {
        long now = System.nanoTime();
        synchronized (this) {
            if (now - nextErrorNanos < 0) {
                suppressedErrors++;
                return;
            }
            nextErrorNanos = now + INTERVAL_NANOS;
            long suppressed = suppressedErrors;
            suppressedErrors = 0;
            LOG.error("exchange {}: {}{}", exchange, what,
                    suppressed == 0 ? "" : " (" + suppressed + " more errors since the last report)", cause);
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
