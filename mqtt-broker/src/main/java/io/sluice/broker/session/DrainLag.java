package io.sluice.broker.session;

/**
 * Tells the thread that offered a message whether a session it offered to has its queue half full
 * while its connection could still write: the session's event loop has not yet run the drain it
 * was asked for (it is another loop, busy or not scheduled), so the queue fills from the offering
 * loop alone. The publisher's connection then holds its reads for a moment instead of letting a
 * burst overflow a subscriber that keeps up. A connection that cannot write (a slow subscriber)
 * signals nothing, so it never slows its publishers. Per thread; no allocation after the first use.
 */
public final class DrainLag {
    private static final ThreadLocal<boolean[]> SIGNALLED = ThreadLocal.withInitial(() -> new boolean[1]);

    private DrainLag() {
    }

    static void signal() {
        SIGNALLED.get()[0] = true;
    }

    /** Whether an offer on this thread found such a session since the last call; clears the signal. */
    public static boolean take() {
        boolean[] signalled = SIGNALLED.get();
        boolean was = signalled[0];
        signalled[0] = false;
        return was;
    }
}
