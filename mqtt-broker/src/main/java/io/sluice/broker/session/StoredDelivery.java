package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;

/**
 * A session's delivery as the state journal keeps it, and as a restart gives it back.
 *
 * @param seq      its identity within the session
 * @param delivery the message and what was decided for this subscriber
 * @param packetId the packet identifier once in flight, 0 while queued
 * @param stage    where it stands in the QoS exchange
 */
public record StoredDelivery(long seq, Delivery delivery, int packetId, DeliveryStage stage) {
}
