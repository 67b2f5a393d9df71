package io.sluice.broker.session;

import java.util.Collection;
import java.util.LinkedHashMap;

/**
 * Outbound QoS 1 and 2 deliveries sent to the client and not yet acknowledged, keyed by packet
 * identifier, in the order they were sent so that a reconnect resends them in order (MQTT 5
 * §4.4). It also allocates packet identifiers: 1..65535, skipping those still in use. Not
 * thread-safe: the owning {@link Session}'s lock guards it.
 */
final class InflightWindow {
    private final LinkedHashMap<Integer, PendingDelivery> entries = new LinkedHashMap<>();
    private int lastPacketId;

    /** Puts a delivery in flight under a fresh packet identifier; the caller checked {@link #size()}. */
    void add(PendingDelivery delivery, long nowNanos) {
        delivery.packetId = nextFreeId();
        delivery.stage = DeliveryStage.AWAITING_ACK;
        delivery.sentNanos = nowNanos;
        entries.put(delivery.packetId, delivery);
    }

    /** Puts back a delivery that was in flight before a restart, under its own packet identifier. */
    void restore(PendingDelivery delivery) {
        entries.put(delivery.packetId, delivery);
        lastPacketId = Math.max(lastPacketId, delivery.packetId);
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

    PendingDelivery get(int packetId) {
        return entries.get(packetId);
    }

    PendingDelivery remove(int packetId) {
        return entries.remove(packetId);
    }

    Collection<PendingDelivery> entries() {
        return entries.values();
    }

    int size() {
        return entries.size();
    }
}
