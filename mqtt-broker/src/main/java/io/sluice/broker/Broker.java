package io.sluice.broker;

import io.sluice.broker.metrics.BrokerMetrics;
import io.sluice.broker.retain.RetainedJournal;
import io.sluice.broker.retain.RetainedStore;
import io.sluice.broker.routing.Router;
import io.sluice.broker.routing.Tap;
import io.sluice.broker.security.Authorizer;
import io.sluice.broker.session.SessionJournal;
import io.sluice.broker.session.QueueBudget;
import io.sluice.broker.session.SessionLimits;
import io.sluice.broker.session.SessionRegistry;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.net.auth.Authenticator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The MQTT engine without its sockets: settings, sessions, routing, retained messages,
 * security and counters, shared by every connection of every listener.
 */
public final class Broker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);
    private static final long RETAINED_SWEEP_SECONDS = 60;

    private final MqttSettings settings;
    private final BrokerMetrics metrics = new BrokerMetrics();
    private final Router router;
    private final SessionRegistry sessions;
    private final ScheduledExecutorService timer;
    private final Authenticator authenticator;
    private final Authorizer authorizer;
    private final AtomicInteger connectedClients = new AtomicInteger();
    private final AtomicInteger openConnections = new AtomicInteger();
    private final long startedMillis = System.currentTimeMillis();

    public Broker(MqttSettings settings, List<? extends Tap> taps, Authenticator authenticator,
                  Authorizer authorizer) throws InvalidTopicException {
        this(settings, taps, authenticator, authorizer, SessionJournal.NONE, RetainedJournal.NONE);
    }

    /** A broker whose sessions and retained messages report their changes to the given journals. */
    public Broker(MqttSettings settings, List<? extends Tap> taps, Authenticator authenticator,
                  Authorizer authorizer, SessionJournal sessionJournal, RetainedJournal retainedJournal)
            throws InvalidTopicException {
        this.settings = settings;
        this.authenticator = authenticator;
        this.authorizer = authorizer;
        this.timer = newTimer();
        this.router = new Router(new RetainedStore(retainedJournal), taps, metrics);
        SessionLimits limits = new SessionLimits(settings.maxMqueueLen(), settings.maxMqueueBytes(),
                settings.queueQos0(), new QueueBudget(settings.maxQueuedBytes()), settings.maxSessions(),
                settings.maxSessionsPerAddress());
        this.sessions = new SessionRegistry(router, limits, metrics, timer, sessionJournal);
        timer.scheduleWithFixedDelay(this::purgeExpiredRetained, RETAINED_SWEEP_SECONDS, RETAINED_SWEEP_SECONDS,
                TimeUnit.SECONDS);
    }

    /** Retained messages expire lazily when matched; this sweep removes the ones nobody asks for. */
    private void purgeExpiredRetained() {
        try {
            router.retained().purgeExpired(System.currentTimeMillis());
        } catch (RuntimeException e) {
            LOG.error("sweeping expired retained messages failed", e);
        }
    }

    /** A broker that lets everyone in and captures nothing; for tests and embedding. */
    public static Broker open(MqttSettings settings) {
        try {
            return new Broker(settings, List.of(), Authenticator.ALLOW_ALL, Authorizer.ALLOW_ALL);
        } catch (InvalidTopicException e) {
            throw new IllegalStateException("no taps, so no tap filter can be invalid", e);
        }
    }

    private static ScheduledExecutorService newTimer() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "sluice-broker-timer");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return Executors.unconfigurableScheduledExecutorService(executor);
    }

    public MqttSettings settings() {
        return settings;
    }

    public BrokerMetrics metrics() {
        return metrics;
    }

    public Router router() {
        return router;
    }

    public SessionRegistry sessions() {
        return sessions;
    }

    /** The broker's one timer thread: session expiry, delayed wills, periodic tasks. */
    public ScheduledExecutorService timer() {
        return timer;
    }

    public Authenticator authenticator() {
        return authenticator;
    }

    public Authorizer authorizer() {
        return authorizer;
    }

    /**
     * Whether QoS 1/2 acknowledgements wait until the message is durable: broker state is
     * persisted, or a capture tap promises durability.
     */
    public boolean acknowledgesDurably() {
        return sessions.journal().enabled() || router.hasDurableTaps();
    }

    /** Connections that completed CONNECT and have not closed; maintained by the connections. */
    public AtomicInteger connectedClients() {
        return connectedClients;
    }

    /** Network connections open on all listeners, before or after CONNECT; what {@code mqtt.max_connections} bounds. */
    public AtomicInteger openConnections() {
        return openConnections;
    }

    /** When this broker was created, epoch milliseconds; the origin of its uptime. */
    public long startedMillis() {
        return startedMillis;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
