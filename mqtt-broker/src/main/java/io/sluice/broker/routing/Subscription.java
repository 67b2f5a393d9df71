package io.sluice.broker.routing;

import io.sluice.broker.topic.TopicFilter;

/**
 * One granted subscription of a session with its MQTT 5 options (§3.8.3.1).
 *
 * @param filter            the validated filter, possibly shared
 * @param qos               the granted maximum QoS
 * @param noLocal           do not deliver messages this same client published
 * @param retainAsPublished forward the RETAIN flag as published instead of clearing it
 * @param retainHandling    0 send retained on subscribe, 1 only if new, 2 never
 * @param identifier        Subscription Identifier, 0 when none was given
 */
public record Subscription(TopicFilter filter, int qos, boolean noLocal, boolean retainAsPublished,
                           int retainHandling, int identifier) {
}
