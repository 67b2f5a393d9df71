package io.sluice.net;

import io.sluice.logging.RateLimitedLog;
import java.time.Duration;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.helpers.MessageFormatter;

/**
 * The log of refused connections, dropped packets and forced disconnects of every front-end, each
 * line naming the client, its address and the reason. All front-ends share one
 * {@link RateLimitedLog} of {@value #LINES_PER_SECOND} lines a second, so that a misbehaving fleet
 * cannot make logging the bottleneck; a line after a storm says how many were not written.
 */
public final class RefusalLog {
    static final int LINES_PER_SECOND = 20;
    private static final RateLimitedLog LOG = new RateLimitedLog(LoggerFactory.getLogger("io.sluice.net.refusals"), null,
            LINES_PER_SECOND, Duration.ofSeconds(1));

    private RefusalLog() {
    }

    /** Logs one line at INFO unless the budget is spent; {@code format} is an SLF4J pattern, filled in only when written. */
    public static void log(String format, Object... args) {
        if (LOG.admit(1)) {
            LOG.write(Level.INFO, MessageFormatter.basicArrayFormat(format, args), null);
        }
    }
}
