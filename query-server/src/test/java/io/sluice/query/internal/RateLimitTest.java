package io.sluice.query.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimitTest {

    private final AtomicLong now = new AtomicLong(123_456_789L);

    @Test
    void nQueriesPassPerFiveSecondWindowAndTheNextWindowStartsAfresh() {
        RateLimit limit = new RateLimit(3, now::get);
        assertTrue(limit.tryAcquire());
        assertTrue(limit.tryAcquire());
        assertTrue(limit.tryAcquire());
        assertFalse(limit.tryAcquire());
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(4_000));
        assertFalse(limit.tryAcquire(), "still the same window");
        assertEquals(1000, limit.millisUntilReset());
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1_000));
        assertTrue(limit.tryAcquire(), "a new window");
        assertTrue(limit.tryAcquire());
        assertTrue(limit.tryAcquire());
        assertFalse(limit.tryAcquire());
    }

    @Test
    void zeroMeansUnlimited() {
        RateLimit limit = new RateLimit(0, now::get);
        for (int i = 0; i < 10_000; i++) {
            assertTrue(limit.tryAcquire());
        }
    }
}
