package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;

import java.util.Arrays;

/**
 * What a session hands its connection to send, filled under the session lock and written after
 * it is released, so that encoding never holds up publishers offering to the same session.
 * One per connection, reused drain after drain; owned by the connection's event loop.
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

    void publish(Delivery delivery, int packetId, boolean dup) {
        add(delivery, packetId, dup ? PUBLISH_DUP : PUBLISH);
    }

    void pubrel(int packetId) {
        add(null, packetId, PUBREL);
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
    }
}
