package io.sluice.broker.session;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The sessions each IP address holds, for {@code mqtt.max_sessions_per_address}: a session counts
 * for the address it last connected from, and each address keeps its offline sessions in the
 * order they went offline, so that the one offline longest can make room. Sessions restored at
 * start-up count for no address until their client connects again (the journal keeps no address).
 *
 * <p>Every operation is brief and under this object's lock; callers may hold a session-map entry
 * lock, never the other way round.
 */
final class AddressSessions {
    private final Map<Session, String> addressOf = new IdentityHashMap<>();
    private final Map<String, Held> byAddress = new HashMap<>();

    /** One address's sessions: how many, and the offline ones, offline longest first. */
    private static final class Held {
        int count;
        final OfflineOrder offline = new OfflineOrder();
    }

    /** Sessions that count for {@code address}. */
    synchronized int count(String address) {
        Held held = byAddress.get(address);
        return held == null ? 0 : held.count;
    }

    /** A connection from {@code address} (null: unknown) attached to {@code session}: it is online and counts there. */
    synchronized void attached(Session session, String address) {
        String previous = address == null ? addressOf.remove(session) : addressOf.put(session, address);
        if (previous != null) {
            release(session, previous);
        }
        if (address != null) {
            byAddress.computeIfAbsent(address, a -> new Held()).count++;
        }
    }

    synchronized void wentOffline(Session session) {
        String address = addressOf.get(session);
        if (address != null) {
            byAddress.get(address).offline.wentOffline(session);
        }
    }

    /** The session ended for good: it counts nowhere. */
    synchronized void ended(Session session) {
        String address = addressOf.remove(session);
        if (address != null) {
            release(session, address);
        }
    }

    /** Removes and returns the session of {@code address} offline longest, or null if it has none. */
    synchronized Session pollOldestOffline(String address) {
        Held held = byAddress.get(address);
        return held == null ? null : held.offline.pollOldest();
    }

    private void release(Session session, String address) {
        Held held = byAddress.get(address);
        held.offline.gone(session);
        if (--held.count == 0) {
            byAddress.remove(address);
        }
    }
}
