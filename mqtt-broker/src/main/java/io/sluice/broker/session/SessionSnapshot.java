package io.sluice.broker.session;

import io.sluice.broker.routing.Subscription;

import java.util.List;

/**
 * What the state journal keeps of a persistent session besides its deliveries: enough to rebuild
 * it after a restart, with its expiry and a delayed will still counting down.
 *
 * @param clientId             the client identifier
 * @param expiryInterval       Session Expiry Interval in seconds ({@link Session#NEVER_EXPIRES} for never)
 * @param disconnectedAtMillis when its last connection ended (wall clock), 0 while connected
 * @param subscriptions        its subscriptions with their options and identifiers
 * @param pendingWill          a will waiting for its delay, or null
 * @param willDueAtMillis      when that will is due (wall clock), 0 without one
 */
public record SessionSnapshot(String clientId, long expiryInterval, long disconnectedAtMillis,
                              List<Subscription> subscriptions, Will pendingWill, long willDueAtMillis) {
    public SessionSnapshot {
        subscriptions = List.copyOf(subscriptions);
    }
}
