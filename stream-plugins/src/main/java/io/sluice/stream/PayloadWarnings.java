package io.sluice.stream;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs one kind of payload problem of one exchange's codec without flooding the log: the first
 * occurrence with its detail, then at most one line per interval, each saying how many occurred
 * since the previous line. The exact totals belong in the codec's {@link PluginCounter}s; this
 * only keeps a storm of one problem from burying everything else. Thread-safe and lock-free.
 *
 * <pre>{@code
 * if (warnings.note(1)) {
 *     warnings.log("offset " + offset + ": " + describe(payload));   // built only when logged
 * }
 * }</pre>
 */
public final class PayloadWarnings {

    /** The interval codecs use unless they have a reason not to. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);

    private final Logger log;
    private final String exchange;
    private final String problem;
    private final long intervalNanos;
    private final AtomicLong unreported = new AtomicLong();
    private final AtomicLong nextNanos;
    private final AtomicBoolean first = new AtomicBoolean(true);

    /**
     * @param problem what the problem is, plural, for the log line, e.g. {@code "malformed SPI payloads, kept raw"}
     */
    public PayloadWarnings(Logger log, String exchange, String problem, Duration interval) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("interval must not be negative, was " + interval);
        }
        this.log = log;
        this.exchange = exchange;
        this.problem = problem;
        this.intervalNanos = interval.toNanos();
        this.nextNanos = new AtomicLong(System.nanoTime());
    }

    /**
     * Notes more occurrences.
     *
     * @return true when the caller should now call {@link #log} (once): for the first occurrence,
     *         and for the first after each interval
     */
    public boolean note(long occurrences) {
        if (occurrences <= 0) {
            return false;
        }
        unreported.addAndGet(occurrences);
        long now = System.nanoTime();
        long next = nextNanos.get();
        return now - next >= 0 && nextNanos.compareAndSet(next, now + intervalNanos);
    }

    /** Writes one WARN line with the detail of the latest occurrence and the count since the last line. */
    public void log(String detail) {
        long count = unreported.getAndSet(0);
        log.warn("exchange {}: {}: {} {}; latest: {} (logged at most every {} s)", exchange, problem, count,
                first.getAndSet(false) ? "so far" : "since the last report", detail, intervalNanos / 1_000_000_000L);
    }
}
