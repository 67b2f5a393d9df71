package io.sluice.broker.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.net.limits.Rate;
import org.junit.jupiter.api.Test;

class PublishThrottleTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aThrottleChargesMessagesAndBytesAndIsAbsentWithoutLimits() {
        assertEquals(null, PublishThrottle.of(Rate.UNLIMITED, Rate.UNLIMITED, 0));
        PublishThrottle throttle = PublishThrottle.of(Rate.UNLIMITED, Rate.parse("1KB/s", true), 0);
        assertEquals(0, throttle.charge(1024, 0));
        assertEquals(SECOND / 2, throttle.charge(512, 0));
        assertEquals(SECOND / 4, throttle.pauseNanos(SECOND / 4));
        assertEquals(0, throttle.pauseNanos(SECOND / 2));
    }
}
