package io.sluice.broker.routing;

import io.netty.util.concurrent.FastThreadLocal;
import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;
import io.sluice.broker.retain.RetainedStore;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;
import io.sluice.broker.topic.TopicName;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes an accepted message to everyone who should get it: the retained store, each matching
 * subscriber once (at the highest granted QoS, with all matching subscription identifiers), one
 * member of each matching shared subscription, and each matching capture tap.
 *
 * <p>Threading: {@link #publish} runs concurrently on every event loop and on timer threads;
 * matching is lock-free (see {@link TopicTree}) and the per-publish scratch state is per thread.
 */
public final class Router {
    private final TopicTree<Route> subscriptions = new TopicTree<>(Route::subscriber);
    private final TopicTree<SharedGroup> shared = new TopicTree<>(SharedGroup::name);
    private final TopicTree<Tap> taps = new TopicTree<>(tap -> tap);
    private final RetainedStore retained;
    private final BrokerMetrics metrics;
    private final boolean durableTaps;
    private final AtomicLong subscriptionCount = new AtomicLong();
    private final FastThreadLocal<Fanout> fanouts = new FastThreadLocal<>() {
        @Override
        protected Fanout initialValue() {
            return new Fanout();
        }
    };

    public Router(RetainedStore retained, List<? extends Tap> captureTaps, BrokerMetrics metrics)
            throws InvalidTopicException {
        this.retained = retained;
        this.metrics = metrics;
        boolean durable = false;
        for (Tap tap : captureTaps) {
            taps.put(TopicFilter.parse(tap.filter(), 0).levels(), tap);
            durable |= tap.holdsAcks();
        }
        this.durableTaps = durable;
    }

    /** The retained messages, shared with subscribe handling. */
    public RetainedStore retained() {
        return retained;
    }

    /** Adds or replaces a subscription; returns true if the same filter was already subscribed. */
    public boolean subscribe(Subscriber subscriber, Subscription subscription) {
        boolean existed = add(subscriber, subscription);
        if (!existed) {
            subscriptionCount.incrementAndGet();
        }
        return existed;
    }

    private boolean add(Subscriber subscriber, Subscription subscription) {
        TopicFilter filter = subscription.filter();
        Route route = new Route(subscriber, subscription);
        if (!filter.isShared()) {
            return subscriptions.put(filter.levels(), route) != null;
        }
        String name = groupName(filter);
        synchronized (shared) {
            SharedGroup group = shared.get(filter.levels(), name);
            if (group == null) {
                group = new SharedGroup(name);
                shared.put(filter.levels(), group);
            }
            return group.put(route);
        }
    }

    /** Removes a subscription; returns true if it existed. */
    public boolean unsubscribe(Subscriber subscriber, TopicFilter filter) {
        boolean existed = remove(subscriber, filter);
        if (existed) {
            subscriptionCount.decrementAndGet();
        }
        return existed;
    }

    private boolean remove(Subscriber subscriber, TopicFilter filter) {
        if (!filter.isShared()) {
            return subscriptions.remove(filter.levels(), subscriber) != null;
        }
        String name = groupName(filter);
        synchronized (shared) {
            SharedGroup group = shared.get(filter.levels(), name);
            if (group == null || !group.remove(subscriber)) {
                return false;
            }
            if (group.isEmpty()) {
                shared.remove(filter.levels(), name);
            }
            return true;
        }
    }

    private static String groupName(TopicFilter filter) {
        return filter.shareGroup() + "/" + filter.filter();
    }

    /** Routes an accepted message; it has already passed authorisation. */
    public void publish(Message message) {
        publish(message, null);
    }

    /**
     * Routes an accepted message whose QoS 1/2 acknowledgement is {@code ack} (or null): capture
     * taps that promise durability hold it until their copy is durable.
     */
    public void publish(Message message, PublishAck ack) {
        if (message.retain()) {
            retained.put(message);
        }
        String[] levels = TopicName.levels(message.topic());
        boolean reserved = TopicName.isReserved(message.topic());
        Fanout fanout = fanouts.get();
        try {
            fanout.begin(message);
            subscriptions.match(levels, reserved, fanout);
            fanout.deliver();
        } finally {
            fanout.end();
        }
        shared.match(levels, reserved, group -> {
            if (!group.dispatch(message, null)) {
                metrics.increment(BrokerCounter.MESSAGES_DROPPED_NO_SUBSCRIBER);
            }
        });
        taps.match(levels, reserved, tap -> tap.capture(message, ack));
    }

    /**
     * Sends a delivery that a leaving member of a shared subscription never completed to another
     * member of the same group; returns false if no other member could take it.
     */
    public boolean redispatch(Delivery delivery, Subscriber leaving) {
        String name = delivery.shareGroup();
        int slash = name.indexOf('/');
        String[] levels = TopicName.levels(name.substring(slash + 1));
        SharedGroup group = shared.get(levels, name);
        return group != null && group.dispatch(delivery.message(), leaving);
    }

    /** Whether some capture tap holds acknowledgements until its copy is durable. */
    public boolean hasDurableTaps() {
        return durableTaps;
    }

    /** Number of ordinary subscriptions plus memberships of shared ones. */
    public long subscriptionCount() {
        return subscriptionCount.get();
    }
}
