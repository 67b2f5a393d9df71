package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;

/**
 * A delivery a session owns from the moment it is queued until its QoS exchange completes.
 * {@code seq} identifies it within the session for as long as it lives, also in the state
 * journal across restarts. Mutable; guarded by the owning {@link Session}'s lock.
 */
final class PendingDelivery {
    final long seq;
    final Delivery delivery;
    int packetId;
    DeliveryStage stage = DeliveryStage.QUEUED;
    long sentNanos;
    /** Whether the journal holds a record of it, which must be removed when it completes. */
    boolean journaled;

    PendingDelivery(long seq, Delivery delivery) {
        this.seq = seq;
        this.delivery = delivery;
    }

    int weight() {
        return delivery.message().weight();
    }

    /** An immutable copy of the current state, for the journal. */
    StoredDelivery stored() {
        return new StoredDelivery(seq, delivery, packetId, stage);
    }
}
