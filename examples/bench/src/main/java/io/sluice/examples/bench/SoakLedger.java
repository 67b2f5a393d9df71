package io.sluice.examples.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the soak sent and what came back: the ids of QoS 1/2 messages the broker acknowledged,
 * and for each persistent subscriber the ids it received. An id is a publisher number and a
 * sequence number in one long, carried in the first 8 bytes of the payload.
 */
final class SoakLedger {
    final AtomicLong sent = new AtomicLong();
    final AtomicLong acknowledged = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong delivered = new AtomicLong();
    final AtomicLong sharedDelivered = new AtomicLong();
    final AtomicLong churnConnects = new AtomicLong();
    final AtomicLong takeovers = new AtomicLong();
    final AtomicLong queries = new AtomicLong();
    final AtomicLong queryFailures = new AtomicLong();
    private final Set<Long> acked = ConcurrentHashMap.newKeySet();
    private final Map<Long, Integer> ackedQos = new ConcurrentHashMap<>();
    private final List<Subscriber> subscribers = new ArrayList<>();

    static long id(int publisher, long seq) {
        return ((long) publisher << 40) | seq;
    }

    void acknowledged(long id, int qos) {
        acked.add(id);
        ackedQos.put(id, qos);
        acknowledged.incrementAndGet();
    }

    /** A persistent subscriber's record of ids received, with repeats counted. */
    synchronized Subscriber subscriber(String name) {
        Subscriber subscriber = new Subscriber(name);
        subscribers.add(subscriber);
        return subscriber;
    }

    synchronized List<Subscriber> subscribers() {
        return List.copyOf(subscribers);
    }

    Set<Long> acked() {
        return acked;
    }

    int qosOf(long id) {
        return ackedQos.getOrDefault(id, -1);
    }

    /** Ids one persistent subscriber received. */
    final class Subscriber {
        final String name;
        final Set<Long> received = ConcurrentHashMap.newKeySet();
        final AtomicLong repeats = new AtomicLong();
        final AtomicLong qos2Repeats = new AtomicLong();

        private Subscriber(String name) {
            this.name = name;
        }

        void received(long id, int qos) {
            delivered.incrementAndGet();
            if (!received.add(id)) {
                repeats.incrementAndGet();
                if (qos == 2) {
                    qos2Repeats.incrementAndGet();
                }
            }
        }

        /** Acknowledged ids it has not received. */
        long missing() {
            return acked.stream().filter(id -> !received.contains(id)).count();
        }
    }
}
