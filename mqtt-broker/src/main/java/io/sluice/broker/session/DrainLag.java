package io.sluice.broker.session;

/**
 * Tells the thread that offered a message whether a session it offered to has its queue half full
 * while its connection keeps up ({@link SessionLink#keepsUp}): the session's event loop has not yet
 * run the drain it was asked for (it is another loop, busy or not scheduled), or the kernel has not
 * yet taken what it wrote, so the queue fills from the offering loop alone. The publisher's
 * connection then holds its reads for a moment instead of letting a burst overflow a subscriber that
 * keeps up. A connection that stopped reading raises nothing once its grace is over, nor does a
 * session whose full queue dropped a message lately (a reader slower than it is fed, which no
 * hold cures), so neither slows its publishers for long. One per thread, reused.
 */
public final class DrainLag {
    private static final ThreadLocal<DrainLag> OF_THREAD = ThreadLocal.withInitial(DrainLag::new);

    private boolean raised;

    private DrainLag() {
    }

    static void signal() {
        OF_THREAD.get().raised = true;
    }

    /** This thread's signal, lowered, so that only what happens after this call raises it. */
    public static DrainLag lowered() {
        DrainLag lag = OF_THREAD.get();
        lag.raised = false;
        return lag;
    }

    /** Whether an offer on this thread found a lagging session since {@link #lowered}. */
    public boolean raised() {
        return raised;
    }
}
