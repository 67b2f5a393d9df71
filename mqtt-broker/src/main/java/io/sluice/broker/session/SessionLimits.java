package io.sluice.broker.session;

/**
 * Bounds of the sessions' outbound queues.
 *
 * @param maxQueuedMessages {@code mqtt.max_mqueue_len}; 0 means unlimited
 * @param maxQueuedBytes    {@code mqtt.max_mqueue_bytes}; 0 means unlimited
 * @param queueQos0         {@code mqtt.queue_qos0}: keep QoS 0 messages for offline clients
 * @param budget            {@code mqtt.max_queued_bytes}: all queues together, shared by every session
 * @param maxSessions       {@code mqtt.max_sessions}: sessions held, online or offline; 0 means unlimited
 * @param maxSessionsPerAddress {@code mqtt.max_sessions_per_address}: sessions last connected from one IP
 *                          address; 0 means unlimited
 */
public record SessionLimits(int maxQueuedMessages, long maxQueuedBytes, boolean queueQos0, QueueBudget budget,
                            int maxSessions, int maxSessionsPerAddress) {
}
