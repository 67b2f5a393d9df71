package io.sluice.broker.session;

/**
 * Bounds of a session's outbound queue.
 *
 * @param maxQueuedMessages {@code mqtt.max_mqueue_len}; 0 means unlimited
 * @param maxQueuedBytes    {@code mqtt.max_mqueue_bytes}; 0 means unlimited
 * @param queueQos0         {@code mqtt.queue_qos0}: keep QoS 0 messages for offline clients
 */
public record SessionLimits(int maxQueuedMessages, long maxQueuedBytes, boolean queueQos0) {
}
