package io.sluice.exchange.internal;

import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Logs a failure that may repeat (a plugin failing on every batch, a disk refusing deletes) at
 * most once per ten seconds with its stack trace; the ones in between are counted by the caller
 * and summed into the next line. Thread-safe.
 */
final class ErrorLog {

    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Logger log;
    private final String exchange;
    private long nextNanos = System.nanoTime() - INTERVAL_NANOS;
    private long suppressed;

    ErrorLog(Logger log, String exchange) {
        this.log = log;
        this.exchange = exchange;
    }

    synchronized void error(String message, Throwable cause) {
        long now = System.nanoTime();
        if (now - nextNanos < 0) {
            suppressed++;
            return;
        }
        nextNanos = now + INTERVAL_NANOS;
        String more = suppressed == 0 ? "" : " (and " + suppressed + " similar errors since the last report)";
        suppressed = 0;
        log.error("exchange " + exchange + ": " + message + more, cause);
    }
}
