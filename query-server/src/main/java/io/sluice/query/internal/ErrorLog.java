package io.sluice.query.internal;

import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Logs a failure that may repeat (a damaged file failing every query, a client flooding bad
 * requests) at most once per ten seconds; the ones in between are counted and summed into the
 * next line. Owned by the query server's thread.
 */
public final class ErrorLog {

    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Logger log;
    private final String exchange;
    private long nextNanos = System.nanoTime() - INTERVAL_NANOS;
    private long suppressed;

    public ErrorLog(Logger log, String exchange) {
        this.log = log;
        this.exchange = exchange;
    }

    /** Logs at ERROR with the cause's stack trace, unless one was logged in the last ten seconds. */
    public void error(String message, Throwable cause) {
        String line = line(message);
        if (line != null) {
            log.error(line, cause);
        }
    }

    /** Logs at WARN, unless one was logged in the last ten seconds. */
    public void warn(String message) {
        String line = line(message);
        if (line != null) {
            log.warn(line);
        }
    }

    private String line(String message) {
        long now = System.nanoTime();
        if (now - nextNanos < 0) {
            suppressed++;
            return null;
        }
        nextNanos = now + INTERVAL_NANOS;
        String more = suppressed == 0 ? "" : " (and " + suppressed + " similar since the last report)";
        suppressed = 0;
        return "query server of exchange " + exchange + ": " + message + more;
    }
}
