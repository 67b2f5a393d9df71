package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;

import java.util.Arrays;

/**
 * What a session hands its connection to send, filled under the session lock and written after
 * it is released, so that encoding never holds up publishers offering to the same session.
 * One per connection, reused drain after drain; owned by the connection's event loop.
 *
 * <p>A session whose state is journaled marks the outbox {@link #waitsForJournal()} when it holds
 * a QoS 2 PUBLISH or a PUBREL: each puts the client in a state that a restart must find (the
 * client holds the packet id, or has released it), so it may leave only once the journal has
 * written the delivery's new stage.
 */
public final class Outbox {
    private static final byte PUBLISH = 0;
    private static final byte PUBLISH_DUP = 1;
    private static final byte PUBREL = 2;

    // small at first: most connections never have more than a few messages in one drain
    private Delivery[] deliveries = new Delivery[8];
    private int[] packetIds = new int[8];
    private byte[] kinds = new byte[8];
    private int size;
    private boolean waitsForJournal;

    void publish(Delivery delivery, int packetId, boolean dup) {
        add(delivery, packetId, dup ? PUBLISH_DUP : PUBLISH);
    }

    void pubrel(int packetId) {
        add(null, packetId, PUBREL);
    }

    /** What was just added may leave only once the state journal has written what the session reported before. */
    void waitForJournal() {
        waitsForJournal = true;
    }

    /** Whether the entries may leave only once the state journal has written what the session reported. */
    public boolean waitsForJournal() {
        return waitsForJournal;
    }

    /** Appends every entry to {@code target} (which then waits for the journal if this did) and empties this outbox. */
    public void moveTo(Outbox target) {
        for (int i = 0; i < size; i++) {
            target.add(deliveries[i], packetIds[i], kinds[i]);
        }
        target.waitsForJournal |= waitsForJournal;
        clear();
    }

    private void add(Delivery delivery, int packetId, byte kind) {
        if (size == deliveries.length) {
            int capacity = size * 2;
            deliveries = Arrays.copyOf(deliveries, capacity);
            packetIds = Arrays.copyOf(packetIds, capacity);
            kinds = Arrays.copyOf(kinds, capacity);
        }
        deliveries[size] = delivery;
        packetIds[size] = packetId;
        kinds[size] = kind;
        size++;
    }

    public int size() {
        return size;
    }

    /** The delivery of entry {@code i}, null for a PUBREL. */
    public Delivery delivery(int i) {
        return deliveries[i];
    }

    /** The packet identifier of entry {@code i}, 0 for QoS 0. */
    public int packetId(int i) {
        return packetIds[i];
    }

    public boolean isPubRel(int i) {
        return kinds[i] == PUBREL;
    }

    public boolean isDup(int i) {
        return kinds[i] == PUBLISH_DUP;
    }

    /** Empties the outbox, dropping references so sent messages can be collected. */
    public void clear() {
        Arrays.fill(deliveries, 0, size, null);
        size = 0;
        waitsForJournal = false;
    }
}
