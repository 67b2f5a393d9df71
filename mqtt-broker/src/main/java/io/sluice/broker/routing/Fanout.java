package io.sluice.broker.routing;

import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;

import java.util.Arrays;
import java.util.IdentityHashMap;

/**
 * Per-thread scratch space for one publish: collects every matching subscription, merges those
 * of the same subscriber into one delivery (highest granted QoS, all identifiers, MQTT 5
 * §3.3.4), applies No Local, then offers each delivery. Reused publish after publish so that
 * routing to a handful of subscribers allocates only the deliveries themselves.
 */
final class Fanout implements TopicTree.Visitor<Route> {
    /** Up to this many subscribers a linear scan finds duplicates faster than a map. */
    private static final int LINEAR_LIMIT = 8;

    private final IdentityHashMap<Subscriber, Integer> index = new IdentityHashMap<>();
    private Message message;
    private Subscriber[] subscribers = new Subscriber[16];
    private int[] qos = new int[16];
    private boolean[] retain = new boolean[16];
    private int[][] ids = new int[16][];
    private int size;

    void begin(Message next) {
        this.message = next;
    }

    @Override
    public void visit(Route route) {
        Subscriber subscriber = route.subscriber();
        Subscription sub = route.subscription();
        if (sub.noLocal() && subscriber.clientId().equals(message.publisherId())) {
            return;
        }
        int slot = slotOf(subscriber);
        qos[slot] = Math.max(qos[slot], Math.min(message.qos(), sub.qos()));
        retain[slot] |= sub.retainAsPublished() && message.retain();
        if (sub.identifier() > 0) {
            ids[slot] = append(ids[slot], sub.identifier());
        }
    }

    private int slotOf(Subscriber subscriber) {
        if (size <= LINEAR_LIMIT) {
            for (int i = 0; i < size; i++) {
                if (subscribers[i] == subscriber) {
                    return i;
                }
            }
            if (size == LINEAR_LIMIT) {
                for (int i = 0; i < size; i++) {
                    index.put(subscribers[i], i);
                }
            }
        } else {
            Integer known = index.get(subscriber);
            if (known != null) {
                return known;
            }
        }
        return add(subscriber);
    }

    private int add(Subscriber subscriber) {
        if (size == subscribers.length) {
            int capacity = size * 2;
            subscribers = Arrays.copyOf(subscribers, capacity);
            qos = Arrays.copyOf(qos, capacity);
            retain = Arrays.copyOf(retain, capacity);
            ids = Arrays.copyOf(ids, capacity);
        }
        int slot = size++;
        subscribers[slot] = subscriber;
        qos[slot] = 0;
        retain[slot] = false;
        ids[slot] = null;
        if (size > LINEAR_LIMIT) {
            index.put(subscriber, slot);
        }
        return slot;
    }

    private static int[] append(int[] current, int id) {
        if (current == null) {
            return new int[] {id};
        }
        int[] grown = Arrays.copyOf(current, current.length + 1);
        grown[current.length] = id;
        return grown;
    }

    /** Offers the merged deliveries; a subscriber that must drop one counts it itself. */
    void deliver() {
        for (int i = 0; i < size; i++) {
            int[] subscriptionIds = ids[i] == null ? Delivery.NO_IDS : ids[i];
            subscribers[i].offer(new Delivery(message, qos[i], retain[i], subscriptionIds, null));
        }
    }

    /** Forgets this publish, releasing references so that no message outlives its delivery here. */
    void end() {
        Arrays.fill(subscribers, 0, size, null);
        Arrays.fill(ids, 0, size, null);
        if (size > LINEAR_LIMIT) {
            index.clear();
        }
        size = 0;
        message = null;
    }
}
