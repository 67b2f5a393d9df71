package io.sluice.server.testing;

import io.sluice.server.SluiceMain;
import io.sluice.storage.segment.SegmentFaults;

/**
 * {@link SluiceMain} on a slow disk: every write to a segment file (the broker state's and every
 * write-ahead log's) first waits {@code -Dsluice.test.write_delay_ms} milliseconds. Started as a
 * {@link ServerProcess} by crash tests that must kill the server while a change is made but not
 * yet written.
 */
public final class SlowDiskMain {
    /** The system property with the delay of each write, in milliseconds. */
    public static final String WRITE_DELAY_MS = "sluice.test.write_delay_ms";

    private SlowDiskMain() {
    }

    public static void main(String[] args) {
        SegmentFaults.install().faults().writeDelayMillis = Long.getLong(WRITE_DELAY_MS, 0);
        SluiceMain.main(args);
    }
}
