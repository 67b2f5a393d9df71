package io.sluice.broker.session;

import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * The offline persistent sessions in the order they went offline, so that the one offline longest
 * can make room when {@code mqtt.max_sessions} is reached. Each operation is brief and under this
 * object's lock; only persistent sessions going offline or coming back pass through here.
 */
final class OfflineOrder {
    private final LinkedHashSet<Session> sessions = new LinkedHashSet<>();

    synchronized void wentOffline(Session session) {
        sessions.remove(session); // to the end: offline since now
        sessions.add(session);
    }

    synchronized void gone(Session session) {
        sessions.remove(session);
    }

    /** Removes and returns the session offline longest, or null. */
    synchronized Session pollOldest() {
        Iterator<Session> it = sessions.iterator();
        if (!it.hasNext()) {
            return null;
        }
        Session oldest = it.next();
        it.remove();
        return oldest;
    }
}
