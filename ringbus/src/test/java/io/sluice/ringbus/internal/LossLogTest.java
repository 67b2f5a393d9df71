package io.sluice.ringbus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.sluice.ringbus.RingCounter;
import io.sluice.testing.CapturedLog;
import io.sluice.testing.Eventually;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class LossLogTest {

    private final CapturedLog captured = new CapturedLog("io.sluice.ringbus.Ring");
    private final AtomicLongArray counts = new AtomicLongArray(RingCounter.values().length);

    @Test
    void aSummaryNamesEachKindOfLossSinceThePreviousOneWithItsTotal() {
        LossLog log = new LossLog(captured, "telemetry", counts, Duration.ofHours(1));
        log.maybeReport();
        assertEquals(List.of(), captured.lines(), "nothing lost, nothing said");
        add(RingCounter.REJECTED_RING_FULL, 5);
        add(RingCounter.DROPPED, 3);
        add(RingCounter.RECEIVED, 100);
        log.maybeReport();
        assertEquals(List.of(new CapturedLog.Line(Level.WARN, "exchange telemetry: 5 " + RingCounter.REJECTED_RING_FULL.help()
                + " (total 5), 3 " + RingCounter.DROPPED.help() + " (total 3)", null)), captured.lines());
    }

    @Test
    void lossesAreReportedOnceTheIntervalPassedEvenIfNoneFollow() {
        LossLog log = new LossLog(captured, "telemetry", counts, Duration.ofMillis(50));
        loseAndReport(log, RingCounter.SPILLED, 10);
        add(RingCounter.SPILLED, 7);
        Eventually.await(() -> {
            log.maybeReport(); // what the idle ring thread does
            return captured.lines().size() == 2;
        }, "the held-back losses reported");
        assertEquals("exchange telemetry: 7 " + RingCounter.SPILLED.help() + " (total 17)", captured.messages().get(1));
        log.maybeReport();
        assertEquals(2, captured.lines().size(), "each loss is reported once");
    }

    @Test
    void closingReportsWhatTheBudgetHeldBack() {
        LossLog log = new LossLog(captured, "telemetry", counts, Duration.ofHours(1));
        loseAndReport(log, RingCounter.REJECTED_CLOSED, 1);
        loseAndReport(log, RingCounter.REJECTED_CLOSED, 2);
        assertEquals(1, captured.lines().size(), "the second report waits for the interval");
        log.flush();
        log.flush();
        assertEquals(List.of(
                "exchange telemetry: 1 " + RingCounter.REJECTED_CLOSED.help() + " (total 1)",
                "exchange telemetry: 2 " + RingCounter.REJECTED_CLOSED.help() + " (total 3)"), captured.messages());
    }

    @Test
    void unexpectedFailuresAreLoggedWithTheirCauseOncePerInterval() {
        LossLog log = new LossLog(captured, "telemetry", counts, Duration.ofHours(1));
        IOException cause = new IOException("disk gone");
        log.error("cannot spill", cause);
        log.error("cannot spill", cause);
        assertEquals(1, captured.lines().size());
        assertEquals(Level.ERROR, captured.lines().get(0).level());
        assertEquals("exchange telemetry: cannot spill", captured.lines().get(0).message());
        assertSame(cause, captured.lines().get(0).cause());
    }

    private void add(RingCounter counter, long n) {
        counts.addAndGet(counter.ordinal(), n);
    }

    private void loseAndReport(LossLog log, RingCounter counter, long n) {
        add(counter, n);
        log.maybeReport();
    }
}
