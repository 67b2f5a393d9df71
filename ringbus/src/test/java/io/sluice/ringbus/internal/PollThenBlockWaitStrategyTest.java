package io.sluice.ringbus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PollThenBlockWaitStrategyTest {

    private final PollThenBlockWaitStrategy strategy = new PollThenBlockWaitStrategy(TimeUnit.SECONDS.toNanos(1));

    @Test
    void sleepsLongOnlyAfterAWakeUpThatFoundManyOffers() {
        assertEquals(PollThenBlockWaitStrategy.FIRST_SLEEP_NANOS, strategy.firstSleep(0), "an idle ring looks again soon");
        assertEquals(PollThenBlockWaitStrategy.FIRST_SLEEP_NANOS, strategy.firstSleep(3), "3 offers since: a low rate");
        long busy = 3 + PollThenBlockWaitStrategy.BUSY_EVENTS;
        assertEquals(PollThenBlockWaitStrategy.BUSY_SLEEP_NANOS, strategy.firstSleep(busy), "16 offers since: busy");
        assertEquals(PollThenBlockWaitStrategy.BUSY_SLEEP_NANOS, strategy.firstSleep(busy + 100), "still busy");
        assertEquals(PollThenBlockWaitStrategy.FIRST_SLEEP_NANOS, strategy.firstSleep(busy + 101), "the rate fell");
        assertEquals(PollThenBlockWaitStrategy.FIRST_SLEEP_NANOS, strategy.firstSleep(busy + 101), "a timeout tick found none");
    }
}
