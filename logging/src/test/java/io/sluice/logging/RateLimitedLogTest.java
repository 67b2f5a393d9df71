package io.sluice.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testing.CapturedLog;
import io.sluice.testing.Eventually;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class RateLimitedLogTest {

    private static final Duration HOUR = Duration.ofHours(1);

    private final CapturedLog captured = new CapturedLog("test");

    @Test
    void theFirstOccurrenceIsWrittenAtOnceWithItsContext() {
        RateLimitedLog log = RateLimitedLog.onePer(captured, "exchange telemetry", HOUR);
        log.warn("disk full");
        assertEquals(List.of(new CapturedLog.Line(Level.WARN, "exchange telemetry: disk full", null)), captured.lines());
    }

    @Test
    void repeatsWithinTheIntervalAreCountedIntoTheNextLine() {
        RateLimitedLog log = RateLimitedLog.onePer(captured, null, HOUR);
        log.warn("first");
        log.warn("suppressed");
        log.warn("suppressed");
        assertEquals(List.of("first"), captured.messages());
        log.write(Level.WARN, "next", null);
        assertEquals(List.of("first", "next (and 2 more since the last report)"), captured.messages());
    }

    @Test
    void onceTheIntervalPassedTheNextLineIsWrittenWithTheCountOfThoseHeldBack() {
        RateLimitedLog log = RateLimitedLog.onePer(captured, null, Duration.ofMillis(50));
        log.warn("first");
        AtomicInteger heldBack = new AtomicInteger();
        Eventually.await(() -> {
            if (log.admit(1)) {
                log.write(Level.WARN, "next", null);
                return true;
            }
            heldBack.incrementAndGet();
            return false;
        }, "a second line after the interval");
        String expected = heldBack.get() == 0 ? "next" : "next (and " + heldBack.get() + " more since the last report)";
        assertEquals(List.of("first", expected), captured.messages());
    }

    @Test
    void aBudgetOfSeveralLinesAllowsThatManyAtOnceAndNoMore() {
        RateLimitedLog log = new RateLimitedLog(captured, null, 20, HOUR);
        for (int i = 0; i < 100; i++) {
            log.info("refused " + i);
        }
        assertEquals(20, captured.lines().size());
        assertEquals("refused 19", captured.messages().get(19));
        assertTrue(captured.lines().stream().allMatch(l -> l.level() == Level.INFO));
        assertTrue(log.hasUnreported(), "80 refusals wait for the next line");
    }

    @Test
    void aLineForSeveralOccurrencesSaysHowManyOthersItStandsFor() {
        RateLimitedLog log = RateLimitedLog.onePer(captured, "exchange x", HOUR);
        assertTrue(log.admit(5));
        log.write(Level.WARN, "5 payloads kept raw, latest at offset 9", null);
        assertFalse(log.admit(3), "within the interval");
        log.write(Level.WARN, "forced", null);
        assertEquals(List.of("exchange x: 5 payloads kept raw, latest at offset 9 (and 4 more)",
                "exchange x: forced (and 3 more since the last report)"), captured.messages());
    }

    @Test
    void errorsCarryTheirCause() {
        RateLimitedLog log = RateLimitedLog.onePer(captured, "exchange x", HOUR);
        IOException cause = new IOException("no space left");
        log.error("cannot write", cause);
        log.error("cannot write", cause);
        assertEquals(1, captured.lines().size());
        assertEquals(Level.ERROR, captured.lines().get(0).level());
        assertSame(cause, captured.lines().get(0).cause());
    }

    @Test
    void admitZeroAsksOnlyForWhatIsWaitingAndASummaryClearsIt() {
        RateLimitedLog log = RateLimitedLog.onePer(captured, "exchange x", HOUR);
        assertFalse(log.admit(0), "nothing waits");
        assertTrue(log.admit(3));
        log.writeSummary(Level.WARN, "3 dropped");
        assertFalse(log.hasUnreported(), "the summary reported them");
        assertFalse(log.admit(2), "within the interval");
        assertTrue(log.hasUnreported());
        assertFalse(log.admit(0), "still within the interval");
        assertEquals(List.of("exchange x: 3 dropped"), captured.messages());
    }

    @Test
    void whatWaitsIsAdmittedByAdmitZeroOnceTheIntervalPassed() {
        RateLimitedLog log = RateLimitedLog.onePer(captured, "exchange x", Duration.ofMillis(50));
        Eventually.await(() -> !log.admit(2), "an occurrence held back by the budget");
        assertTrue(log.hasUnreported());
        Eventually.await(() -> log.admit(0), "the waiting occurrences admitted after the interval");
        log.writeSummary(Level.WARN, "all reported");
        assertFalse(log.hasUnreported());
        assertFalse(log.admit(0), "nothing waits any more");
    }

    @Test
    void concurrentCallersNeitherExceedTheBudgetNorLoseACount() throws Exception {
        RateLimitedLog log = new RateLimitedLog(captured, null, 5, HOUR);
        int threads = 4;
        int each = 20_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                awaitQuietly(start);
                for (int i = 0; i < each; i++) {
                    log.info("refused");
                }
            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        assertEquals(5, captured.lines().size());
        log.write(Level.INFO, "final", null);
        assertEquals("final (and " + (threads * each - 5) + " more since the last report)", captured.messages().get(5));
    }

    @Test
    void impossibleBudgetsAndCountsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RateLimitedLog(captured, null, 0, HOUR));
        assertThrows(IllegalArgumentException.class, () -> new RateLimitedLog(captured, null, 1, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> RateLimitedLog.onePer(captured, null, HOUR).admit(-1));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
