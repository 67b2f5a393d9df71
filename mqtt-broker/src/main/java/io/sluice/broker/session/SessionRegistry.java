package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;
import io.sluice.broker.routing.Router;
import io.sluice.broker.routing.Subscription;
import io.sluice.net.RefusalLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Every session by client id, and the lifecycle around them: attaching a connection (with
 * atomic takeover), what happens when a connection ends (wills, shared-subscription hand-over,
 * expiry), removing sessions whose expiry interval has passed, and rebuilding sessions after a
 * restart.
 *
 * <p>Threading: called from every event loop and from the timer thread. The map's per-key
 * atomic {@code compute} makes "find or create, then attach" one step per client id, so two
 * connections with the same id can never both believe they own the session.
 */
public final class SessionRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(SessionRegistry.class);
    /** How often offline queues are swept for expired messages. */
    private static final long PURGE_SECONDS = 30;

    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final OfflineOrder offline = new OfflineOrder();
    /** Null when {@code mqtt.max_sessions_per_address} is 0: then connecting takes no lock for it. */
    private final AddressSessions addresses;
    private final Router router;
    private final SessionLimits limits;
    private final BrokerMetrics metrics;
    private final ScheduledExecutorService timer;
    private final SessionJournal journal;

    public SessionRegistry(Router router, SessionLimits limits, BrokerMetrics metrics,
                           ScheduledExecutorService timer, SessionJournal journal) {
        this.router = router;
        this.limits = limits;
        this.metrics = metrics;
        this.timer = timer;
        this.journal = journal;
        this.addresses = limits.maxSessionsPerAddress() > 0 ? new AddressSessions() : null;
        timer.scheduleWithFixedDelay(this::purgeExpired, PURGE_SECONDS, PURGE_SECONDS, TimeUnit.SECONDS);
    }

    /** Online sessions discard expired messages as they drain; offline ones are swept here. */
    void purgeExpired() {
        long now = System.currentTimeMillis();
        try {
            for (Session session : sessions.values()) {
                if (!session.isOnline()) {
                    session.purgeExpired(now);
                }
            }
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again; log and keep sweeping.
            LOG.error("sweeping expired messages failed", e);
        }
    }

    /** The result of attaching a connection to a client id. */
    public record Attachment(Session session, boolean sessionPresent) {
    }

    /**
     * Finds or creates the session of {@code clientId} and attaches {@code link}. With
     * {@code cleanStart} any existing session is discarded first. A connection already attached
     * is told it was taken over. A new session beyond {@code mqtt.max_sessions_per_address} first
     * ends the session of the same address that has been offline longest, and one beyond
     * {@code mqtt.max_sessions} the session offline longest of all; if every candidate is online,
     * it is refused.
     */
    public Attachment attach(String clientId, boolean cleanStart, long expirySeconds, SessionLink link)
            throws SessionLimitReached {
        String address = addresses == null ? null : link.sourceHost();
        if (!sessions.containsKey(clientId)) {
            makeRoomAt(address, clientId);
            makeRoom(clientId);
        }
        Session[] discarded = new Session[1];
        SessionLink[] replaced = new SessionLink[1];
        boolean[] present = new boolean[1];
        Session session = sessions.compute(clientId, (id, existing) -> {
            Session target = existing;
            if (existing != null && cleanStart) {
                discarded[0] = existing;
                replaced[0] = existing.unlink();
                existing.end(); // before the new session's first journal record under the same id
                target = null;
            }
            if (target == null) {
                target = new Session(id, limits, metrics, journal);
            } else {
                present[0] = true;
            }
            target.expiryIntervalSeconds(expirySeconds);
            offline.gone(target);
            if (addresses != null) {
                addresses.attached(target, address);
            }
            SessionLink previous = target.attach(link);
            if (previous != null) {
                replaced[0] = previous;
            }
            return target;
        });
        if (replaced[0] != null) {
            metrics.increment(BrokerCounter.TAKEOVERS);
            replaced[0].takenOver();
        }
        if (discarded[0] != null) {
            end(discarded[0]);
        }
        return new Attachment(session, present[0]);
    }

    /**
     * Ends offline sessions, longest offline first, until a new one fits within
     * {@code mqtt.max_sessions}; concurrent new sessions may overshoot the bound by one each.
     */
    private void makeRoom(String newClientId) throws SessionLimitReached {
        int max = limits.maxSessions();
        while (max > 0 && sessions.size() >= max) {
            Session oldest = offline.pollOldest();
            if (oldest == null) {
                throw new SessionLimitReached(sessions.size() + " sessions held, all online (mqtt.max_sessions = "
                        + max + ")");
            }
            evict(oldest, newClientId, "mqtt.max_sessions = " + max);
        }
    }

    /**
     * The same within one address's sessions, for {@code mqtt.max_sessions_per_address}; a null
     * address (the limit is off, or the address unknown) is never bound.
     */
    private void makeRoomAt(String address, String newClientId) throws SessionLimitReached {
        int max = limits.maxSessionsPerAddress();
        while (address != null && addresses.count(address) >= max) {
            Session oldest = addresses.pollOldestOffline(address);
            if (oldest == null) {
                throw new SessionLimitReached(addresses.count(address) + " sessions held for address " + address
                        + ", all online (mqtt.max_sessions_per_address = " + max + ")");
            }
            evict(oldest, newClientId, "mqtt.max_sessions_per_address = " + max + ", address " + address);
        }
    }

    private void evict(Session oldest, String newClientId, String bound) {
        if (removeIfOffline(oldest)) {
            metrics.increment(BrokerCounter.SESSIONS_EVICTED);
            RefusalLog.log("ended the session of client '{}', offline since {}, to make room for client '{}' ({})",
                    oldest.clientId(), Instant.ofEpochMilli(oldest.disconnectedAtMillis()), newClientId, bound);
            end(oldest);
        }
    }

    /**
     * A connection has ended. {@code will} is its will if the end was abnormal (null after a
     * normal DISCONNECT). Detaches, then publishes or schedules the will and starts the expiry
     * countdown; a session with expiry 0 ends now.
     */
    public void detach(Session session, SessionLink link, Will will) {
        long now = System.currentTimeMillis();
        if (!session.detach(link, now)) {
            tookOver(session, will);
            return;
        }
        for (Delivery delivery : session.takeSharedDeliveries()) {
            if (!router.redispatch(delivery, session)) {
                session.offer(delivery); // no other member: keep it for when this one returns
            }
        }
        long expiry = session.expiryIntervalSeconds();
        if (expiry == 0) {
            if (removeIfOffline(session)) {
                end(session);
            }
            publishWill(will);
            return;
        }
        if (will != null) {
            scheduleWill(session, will, Math.min(will.delaySeconds(), expiry) * 1000L, now);
        }
        offline.wentOffline(session);
        if (addresses != null) {
            addresses.wentOffline(session);
        }
        scheduleExpiry(session, expiry == Session.NEVER_EXPIRES ? -1 : expiry * 1000L);
    }

    /** The old connection of a taken-over session ended: its will goes out unless the session lives on and the will is delayed. */
    private void tookOver(Session session, Will will) {
        if (will == null) {
            return;
        }
        boolean sessionContinues = sessions.get(session.clientId()) == session;
        if (!sessionContinues || will.delaySeconds() == 0) {
            publishWill(will);
        }
    }

    private void scheduleWill(Session session, Will will, long delayMillis, long nowMillis) {
        if (delayMillis <= 0) {
            publishWill(will);
            return;
        }
        session.pendingWill(will, nowMillis + delayMillis, timer.schedule(() -> {
            if (!session.isOnline()) {
                publishWill(session.takePendingWill());
            }
        }, delayMillis, TimeUnit.MILLISECONDS));
    }

    /** Ends the session after {@code delayMillis} offline; a negative delay means never. */
    private void scheduleExpiry(Session session, long delayMillis) {
        if (delayMillis >= 0) {
            session.expiryTask(timer.schedule(() -> expire(session), delayMillis, TimeUnit.MILLISECONDS));
        }
    }

    private void expire(Session session) {
        if (!removeIfOffline(session)) {
            return;
        }
        metrics.increment(BrokerCounter.SESSIONS_EXPIRED);
        LOG.debug("session of client '{}' expired after {} s", session.clientId(), session.expiryIntervalSeconds());
        end(session);
    }

    /** Removes the session unless a connection re-attached to it meanwhile; atomic per client id. */
    private boolean removeIfOffline(Session session) {
        boolean[] removed = new boolean[1];
        sessions.computeIfPresent(session.clientId(), (id, current) -> {
            if (current == session && !current.isOnline()) {
                removed[0] = true;
                return null;
            }
            return current;
        });
        return removed[0];
    }

    /** Ends a session for good: its subscriptions go, its journal records go, and a pending will goes out now. */
    private void end(Session session) {
        offline.gone(session);
        if (addresses != null) {
            addresses.ended(session);
        }
        for (Subscription subscription : session.subscriptions()) {
            router.unsubscribe(session, subscription.filter());
        }
        Will will = session.takePendingWill();
        session.end();
        publishWill(will);
    }

    private void publishWill(Will will) {
        if (will == null) {
            return;
        }
        metrics.increment(BrokerCounter.WILLS_PUBLISHED);
        router.publish(will.messageAt(System.currentTimeMillis()));
    }

    // ---- restart ----

    /**
     * Puts back a session recovered from the state journal, offline, with its subscriptions in
     * the router. Its expiry and delayed will resume counting from the times they were recorded;
     * call {@link #resumeTimers} once every session is back, so that wills going out at once find
     * every subscriber.
     */
    public Session restore(SessionSnapshot snapshot, Collection<StoredDelivery> deliveries,
                           Collection<Integer> inboundQos2) {
        Session session = new Session(snapshot.clientId(), limits, metrics, journal);
        session.restore(snapshot, deliveries, inboundQos2);
        for (Subscription subscription : snapshot.subscriptions()) {
            router.subscribe(session, subscription);
        }
        sessions.put(snapshot.clientId(), session);
        offline.wentOffline(session);
        return session;
    }

    /** Restarts the expiry countdown and the delayed will of a restored session, from where they stood. */
    public void resumeTimers(Session session, SessionSnapshot snapshot, long nowMillis) {
        long disconnectedAt = session.disconnectedAtMillis();
        if (snapshot.pendingWill() != null) {
            long delay = snapshot.willDueAtMillis() - nowMillis;
            if (delay <= 0) {
                publishWill(session.takePendingWill()); // also clears it from the journal
            } else {
                scheduleWill(session, snapshot.pendingWill(), delay, nowMillis);
            }
        }
        long expiry = snapshot.expiryInterval();
        if (expiry == Session.NEVER_EXPIRES) {
            return;
        }
        long remaining = disconnectedAt + expiry * 1000L - nowMillis;
        if (remaining <= 0) {
            expire(session); // expired while the broker was down: gone before any client can connect
        } else {
            scheduleExpiry(session, remaining);
        }
    }

    /** Where sessions report what must survive a restart. */
    public SessionJournal journal() {
        return journal;
    }

    /** The session of {@code clientId}, or null. */
    public Session get(String clientId) {
        return sessions.get(clientId);
    }

    public Collection<Session> sessions() {
        return sessions.values();
    }

    public int size() {
        return sessions.size();
    }
}
