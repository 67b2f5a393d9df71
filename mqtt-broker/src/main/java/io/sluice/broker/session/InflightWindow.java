package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;

import java.util.Collection;
import java.util.LinkedHashMap;

/**
 * Outbound QoS 1 and 2 messages sent to the client and not yet acknowledged, keyed by packet
 * identifier, in the order they were sent so that a reconnect resends them in order (MQTT 5
 * §4.4). It also allocates packet identifiers: 1..65535, skipping those still in use. Not
 * thread-safe: the owning {@link Session}'s lock guards it.
 */
final class InflightWindow {
    /** Where one message is in the QoS 1 / QoS 2 exchange. */
    enum State {
        /** PUBLISH sent; waiting for PUBACK (QoS 1) or PUBREC (QoS 2). */
        AWAITING_ACK,
        /** PUBREC received and PUBREL sent; waiting for PUBCOMP. */
        AWAITING_COMP
    }

    /** One unacknowledged message. Mutable state, guarded by the session lock. */
    static final class Entry {
        final int packetId;
        final Delivery delivery;
        State state = State.AWAITING_ACK;
        long sentNanos;

        Entry(int packetId, Delivery delivery) {
            this.packetId = packetId;
            this.delivery = delivery;
        }
    }

    private final LinkedHashMap<Integer, Entry> entries = new LinkedHashMap<>();
    private int lastPacketId;

    /** Adds a delivery under a fresh packet identifier; the caller checked {@link #size()}. */
    Entry add(Delivery delivery, long nowNanos) {
        int id = nextFreeId();
        Entry entry = new Entry(id, delivery);
        entry.sentNanos = nowNanos;
        entries.put(id, entry);
        return entry;
    }

    private int nextFreeId() {
        if (entries.size() >= 65535) {
            throw new IllegalStateException("all 65535 packet identifiers are in use");
        }
        do {
            lastPacketId = lastPacketId == 65535 ? 1 : lastPacketId + 1;
        } while (entries.containsKey(lastPacketId));
        return lastPacketId;
    }

    Entry get(int packetId) {
        return entries.get(packetId);
    }

    Entry remove(int packetId) {
        return entries.remove(packetId);
    }

    Collection<Entry> entries() {
        return entries.values();
    }

    int size() {
        return entries.size();
    }

    void clear() {
        entries.clear();
    }
}
