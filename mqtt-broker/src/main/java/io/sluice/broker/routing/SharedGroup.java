package io.sluice.broker.routing;

import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The members of one shared subscription {@code $share/<group>/<filter>} (MQTT 5 §4.8.2). Each
 * message goes to one member, rotating; members that are online are preferred, and a message
 * only goes to an offline member that keeps a persistent session when no member is online.
 *
 * <p>Threading: members change under the router's tree lock and are read lock-free from an
 * immutable array; the rotation cursor is atomic because every event loop dispatches.
 */
final class SharedGroup {
    private final String name;
    private final AtomicInteger cursor = new AtomicInteger();
    private volatile Route[] members = new Route[0];

    SharedGroup(String name) {
        this.name = name;
    }

    /** "group/filter", the key under which deliveries remember where they came from. */
    String name() {
        return name;
    }

    /** Adds or replaces a member; returns true if the subscriber was already a member. */
    synchronized boolean put(Route route) {
        Route[] current = members;
        for (int i = 0; i < current.length; i++) {
            if (current[i].subscriber() == route.subscriber()) {
                Route[] copy = current.clone();
                copy[i] = route;
                members = copy;
                return true;
            }
        }
        Route[] grown = Arrays.copyOf(current, current.length + 1);
        grown[current.length] = route;
        members = grown;
        return false;
    }

    /** Removes a member; returns true if it was one. */
    synchronized boolean remove(Subscriber subscriber) {
        Route[] current = members;
        for (int i = 0; i < current.length; i++) {
            if (current[i].subscriber() == subscriber) {
                Route[] shrunk = new Route[current.length - 1];
                System.arraycopy(current, 0, shrunk, 0, i);
                System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                members = shrunk;
                return true;
            }
        }
        return false;
    }

    boolean isEmpty() {
        return members.length == 0;
    }

    int size() {
        return members.length;
    }

    /**
     * Hands {@code message} to one member other than {@code excluded} (which may be null).
     * Returns false when no member could take it.
     */
    boolean dispatch(Message message, Subscriber excluded) {
        Route[] current = members;
        int n = current.length;
        if (n == 0) {
            return false;
        }
        int start = Math.floorMod(cursor.getAndIncrement(), n);
        Route chosen = pick(current, start, excluded, true);
        if (chosen == null) {
            chosen = pick(current, start, excluded, false);
        }
        return chosen != null && chosen.subscriber().offer(deliveryFor(chosen, message));
    }

    private static Route pick(Route[] routes, int start, Subscriber excluded, boolean onlineOnly) {
        for (int i = 0; i < routes.length; i++) {
            Route route = routes[(start + i) % routes.length];
            Subscriber subscriber = route.subscriber();
            if (subscriber != excluded && (onlineOnly ? subscriber.isOnline() : subscriber.isPersistent())) {
                return route;
            }
        }
        return null;
    }

    private Delivery deliveryFor(Route route, Message message) {
        Subscription sub = route.subscription();
        int qos = Math.min(message.qos(), sub.qos());
        boolean retain = sub.retainAsPublished() && message.retain();
        int[] ids = sub.identifier() > 0 ? new int[] {sub.identifier()} : Delivery.NO_IDS;
        return new Delivery(message, qos, retain, ids, name);
    }
}
