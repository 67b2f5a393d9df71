package io.sluice.broker.testing;

import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/** Waits for a condition with a deadline, polling; the way tests wait, instead of sleeping. */
public final class Await {
    private Await() {
    }

    /** Returns as soon as {@code condition} holds; fails with {@code what} after 10 seconds. */
    public static void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after 10 s waiting for: " + what);
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for: " + what);
            }
        }
    }
}
