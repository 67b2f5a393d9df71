package io.sluice.query;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a deadline, checking it every millisecond. */
public final class Eventually {

    static final Duration DEADLINE = Duration.ofSeconds(30);

    private Eventually() {
    }

    public static void await(BooleanSupplier condition, Supplier<String> what) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + DEADLINE + ": " + what.get());
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
