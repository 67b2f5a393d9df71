package io.sluice.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** How every test waits: for a condition, with a deadline, checking it every millisecond; never a fixed sleep. */
public final class Eventually {

    /** Long enough for a loaded 2-core CI machine; only a failing test ever waits this long. */
    public static final Duration DEADLINE = Duration.ofSeconds(30);

    private Eventually() {
    }

    /** Returns as soon as {@code condition} holds; fails with {@code what} (built only then) after {@link #DEADLINE}. */
    public static void await(BooleanSupplier condition, Supplier<String> what) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + DEADLINE + ": " + what.get());
            }
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting for: " + what.get());
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** As {@link #await(BooleanSupplier, Supplier)}, with a fixed description. */
    public static void await(BooleanSupplier condition, String what) {
        await(condition, () -> what);
    }
}
