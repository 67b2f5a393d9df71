package io.sluice.net.limits;

import io.sluice.net.limits.Rate;
import io.sluice.net.limits.TokenBucket;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RateTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void ratesAreWrittenAsAmountPerPeriod() {
        assertEquals(new Rate(20, SECOND), Rate.parse("20/s", false));
        assertEquals(new Rate(1000, 10 * SECOND), Rate.parse("1000/10s", false));
        assertEquals(new Rate(100, 60 * SECOND), Rate.parse("100/m", false));
        assertEquals(new Rate(1000, SECOND), Rate.parse("1000", false), "a bare number is per second");
        assertEquals(new Rate(1 << 20, SECOND), Rate.parse("1MB/s", true));
        assertEquals(new Rate(512 * 1024, SECOND), Rate.parse("512KB/s", true));
        assertTrue(Rate.parse("infinity", true).isUnlimited());
        assertTrue(Rate.parse("0", false).isUnlimited());
        assertEquals(2.0, Rate.parse("20/10s", false).perSecond(), 1e-9);
    }

    @Test
    void badRatesSayWhatIsExpected() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Rate.parse("fast", false))
                .getMessage().contains("20/s"));
        assertThrows(IllegalArgumentException.class, () -> Rate.parse("1MB/s", false), "a count takes no unit");
        assertThrows(IllegalArgumentException.class, () -> Rate.parse("1XB/s", true));
        assertThrows(IllegalArgumentException.class, () -> Rate.parse("5/0s", false));
    }

    @Test
    void aBucketAllowsOneBurstThenChargesDebtThatTakesTimeToRepay() {
        TokenBucket bucket = new TokenBucket(Rate.parse("10/s", false), 0);
        for (int i = 0; i < 10; i++) {
            assertEquals(0, bucket.consume(1, 0), "within the burst");
        }
        long pause = bucket.consume(1, 0);
        assertEquals(SECOND / 10, pause, "one message over: a tenth of a second");
        assertEquals(SECOND / 10 * 3, bucket.consume(2, 0));
        assertEquals(0, bucket.consume(0, SECOND * 3 / 10), "repaid after the pause");
        assertEquals(10.0, bucket.available(100 * SECOND), 1e-9, "refills to the burst and no further");
    }

    @Test
    void tryConsumeTakesNothingWhenEmpty() {
        TokenBucket bucket = new TokenBucket(Rate.parse("2/10s", false), 0);
        assertTrue(bucket.tryConsume(1, 0));
        assertTrue(bucket.tryConsume(1, 0));
        assertEquals(false, bucket.tryConsume(1, SECOND));
        assertTrue(bucket.tryConsume(1, 5 * SECOND), "one token every five seconds");
    }
}
