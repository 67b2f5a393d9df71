package io.sluice.ringbus;

/**
 * The write-ahead log a ring appends every message to before the message joins a batch (an
 * exchange with {@code durability = wal}): the log assigns the message's offset, and a message's
 * receipt runs once the log holds it durably, or is refused through the log when the message is not
 * stored.
 *
 * <p>Threading: {@link #append}, {@link #commit}, {@link #endOfBatch}, {@link #whenDurable} and {@link #isAvailable}
 * are called by the ring thread alone (and by the closing thread after the ring thread stopped),
 * like a single-producer sequencer; they must never block on the disk and must allocate nothing
 * per message. Receipts may run on any thread.
 */
public interface WriteAheadLog {

    /**
     * Appends one keyed message to the open batch of the log.
     *
     * @return the message's offset (strictly greater than the previous one), or -1 when the log
     *         cannot take it (it failed, or the record is too large for it): the ring refuses the
     *         message and counts it ({@link RingCounter#REJECTED_UNLOGGED})
     */
    long append(long ts, String topic, byte[] payload);

    /**
     * Writes what was appended and starts making it durable under the log's flush policy, without
     * waiting for it. The ring calls it before it hands a batch up, when it goes idle and when it closes.
     */
    void commit();

    /**
     * The end of a Disruptor batch, with more messages likely to follow: the log commits if a
     * receipt waits for what was appended, and otherwise may go on filling its open batch, so
     * unacknowledged traffic costs no write per Disruptor batch.
     */
    void endOfBatch();

    /**
     * Runs {@code receipt} once every offset up to and including {@code offset} is durable (or the
     * log gives up on it: it failed or closed). Offsets are given in non-decreasing order.
     */
    void whenDurable(long offset, Runnable receipt);

    /**
     * Settles the receipt of a message the ring refused (its log could not take it, its batch was
     * blocked): the message is not stored, and the receipt's owner must learn that rather than
     * take it for stored.
     */
    void refuse(Runnable receipt);

    /**
     * Whether the log holds every message appended so far, so a full batch can be left to it
     * (fullOp FILE): false once it failed.
     */
    boolean isAvailable();
}
