package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;
import io.sluice.broker.routing.Router;
import io.sluice.broker.routing.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Every session by client id, and the lifecycle around them: attaching a connection (with
 * atomic takeover), what happens when a connection ends (wills, shared-subscription hand-over,
 * expiry), and removing sessions whose expiry interval has passed.
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
    private final Router router;
    private final SessionLimits limits;
    private final BrokerMetrics metrics;
    private final ScheduledExecutorService timer;

    public SessionRegistry(Router router, SessionLimits limits, BrokerMetrics metrics,
                           ScheduledExecutorService timer) {
        this.router = router;
        this.limits = limits;
        this.metrics = metrics;
        this.timer = timer;
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
     * is told it was taken over.
     */
    public Attachment attach(String clientId, boolean cleanStart, long expirySeconds, SessionLink link) {
        Session[] discarded = new Session[1];
        SessionLink[] replaced = new SessionLink[1];
        boolean[] present = new boolean[1];
        Session session = sessions.compute(clientId, (id, existing) -> {
            Session target = existing;
            if (existing != null && cleanStart) {
                discarded[0] = existing;
                replaced[0] = existing.unlink();
                target = null;
            }
            if (target == null) {
                target = new Session(id, limits, metrics);
            } else {
                present[0] = true;
            }
            target.expiryIntervalSeconds(expirySeconds);
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
     * A connection has ended. {@code will} is its will if the end was abnormal (null after a
     * normal DISCONNECT). Detaches, then publishes or schedules the will and starts the expiry
     * countdown; a session with expiry 0 ends now.
     */
    public void detach(Session session, SessionLink link, Will will) {
        if (!session.detach(link)) {
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
        scheduleWill(session, will, expiry);
        if (expiry != Session.NEVER_EXPIRES) {
            session.expiryTask(timer.schedule(() -> expire(session), expiry, TimeUnit.SECONDS));
        }
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

    private void scheduleWill(Session session, Will will, long expirySeconds) {
        if (will == null) {
            return;
        }
        long delay = Math.min(will.delaySeconds(), expirySeconds);
        if (delay == 0) {
            publishWill(will);
            return;
        }
        session.pendingWill(will, timer.schedule(() -> {
            if (!session.isOnline()) {
                publishWill(session.takePendingWill());
            }
        }, delay, TimeUnit.SECONDS));
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

    /** Ends a session for good: its subscriptions go, and a pending will goes out now. */
    private void end(Session session) {
        for (Subscription subscription : session.subscriptions()) {
            router.unsubscribe(session, subscription.filter());
        }
        publishWill(session.takePendingWill());
    }

    private void publishWill(Will will) {
        if (will == null) {
            return;
        }
        metrics.increment(BrokerCounter.WILLS_PUBLISHED);
        router.publish(will.messageAt(System.currentTimeMillis()));
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
