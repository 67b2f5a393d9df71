package io.sluice.ringbus;

/**
 * Receives what the ring hands up. Every method runs on the ring thread. Each transition names
 * both the batch that leaves the ring and the new batch the ring fills from now on, so the sink
 * can publish the change to readers in one step (a reader never sees a batch twice or not at all).
 */
public interface BatchSink {

    /** The ring starts, filling {@code first}. */
    void started(Batch first);

    /**
     * Hands a sealed batch up if the writer has room right now.
     *
     * @return false, changing nothing, when there is no room
     */
    boolean tryHandOff(Batch sealed, Batch next);

    /** Hands a sealed batch up, waiting for room (back-pressure). */
    void handOff(Batch sealed, Batch next);

    /** The sealed batch was spilled to disk as {@code spilled}; it is written later, in order. */
    void spilled(SpilledBatch spilled, Batch sealed, Batch next);

    /**
     * The sealed batch is left in the ring's write-ahead log (fullOp FILE with a log): its rows are
     * the log's offsets [first, last] of the batch; the writer reads them from there later, in order.
     */
    void logged(Batch sealed, Batch next);

    /** The sealed batch was discarded (fullOp DROP). */
    void dropped(Batch sealed, Batch next);
}
