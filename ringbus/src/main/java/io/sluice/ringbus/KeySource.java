package io.sluice.ringbus;

/**
 * Gives each captured message its key. Called only by the ring thread, once per message, in
 * the order messages are taken, so a plain implementation needs no synchronisation.
 */
public interface KeySource {

    /** The ts of a message that arrived at {@code arrivalMs}: never smaller than the previous one. */
    long ts(long arrivalMs);

    /** The next offset: strictly greater than the previous one. */
    long nextOffset();
}
