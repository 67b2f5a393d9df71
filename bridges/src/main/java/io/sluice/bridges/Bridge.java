package io.sluice.bridges;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import io.sluice.storage.Receipt;
import io.sluice.bridges.backlog.Backlog;
import io.sluice.bridges.backlog.BacklogRecord;
import io.sluice.bridges.backlog.BacklogWriter;
import io.sluice.logging.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bridge: the state machine that owns the connection to one {@link Remote} and moves the
 * messages of its {@link Backlog} there, oldest first.
 *
 * <pre>
 *   CONNECTING ──connected──▶ DRAINING ◀──backlog grows past the window── CONNECTED
 *       ▲   │                    │  └──────────backlog empty──────────────────▲
 *       │   └──failed──▶ BACKOFF ◀──connection lost, or no ack for cancel_timeout──┘
 *       └────── wait over ──┘
 * </pre>
 *
 * <p>On every connection the backlog is sent again from its start at once, in order, as fast as the
 * remote's window allows (its Receive Maximum for MQTT): pipelined, never one message per interval
 * and never waiting for a new message to arrive. A message leaves the backlog only once the remote
 * acknowledged it; the cursor is committed at most every {@value #COMMIT_INTERVAL_MS} ms and when
 * the backlog empties. Each state change is logged with its reason and the backlog's size.
 *
 * <p>Threads: {@code sluice-bridge-<name>} runs the state machine and is the only one to read the
 * backlog and send; the remote's threads report acknowledgements through {@link AckWindow}; the
 * {@link BacklogWriter} stores what taps hand over and wakes this thread; {@code
 * sluice-bridge-<name>-commit} commits the cursor, so its fsync never holds up sending.
 */
public final class Bridge implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Bridge.class);
    private static final long COMMIT_INTERVAL_MS = 100;
    private static final long IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final int READ_BATCH = 1024;
    /** A connection must stay up this long before the backoff starts again from its shortest wait. */
    private static final long STABLE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String name;
    private final String type;
    private final Remote remote;
    private final Backlog backlog;
    private final BacklogWriter writer;
    private final BridgeCounters counters;
    private final Backoff backoff;
    private final long cancelTimeoutNanos;
    private final AckWindow acks = new AckWindow();
    private final ExecutorService committer;
    private final AtomicBoolean commitQueued = new AtomicBoolean();
    private final RateLimitedLog refusals;
    private final Thread thread;

    private volatile BridgeState state = BridgeState.STOPPED;
    private volatile boolean stopping;
    private volatile boolean woken;
    private volatile Connection current;
    private volatile String lastError;

    // Bridge thread only.
    private long highestSent;
    private long backoffUntilNanos;
    private long nextCommitMillis;
    private long lastBase = -1;
    private long lastProgressNanos;
    private long drainStartNanos;
    private long drainStartAcked;
    private long connectedAtNanos;
    private boolean backoffReset;

    /**
     * @param type               {@code mqtt} or {@code kafka}, for status and metrics
     * @param backoffMaxMillis   {@code backoff_max}
     * @param cancelTimeoutMillis {@code cancel_timeout}: the longest wait for an acknowledgement before
     *                           the connection counts as broken
     * @param writerQueue        messages that may wait for the backlog writer
     */
    public Bridge(String name, String type, Remote remote, Backlog backlog, BridgeCounters counters,
                  long backoffMaxMillis, long cancelTimeoutMillis, int writerQueue) {
        this.name = name;
        this.type = type;
        this.remote = remote;
        this.backlog = backlog;
        this.counters = counters;
        this.backoff = new Backoff(backoffMaxMillis);
        this.cancelTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(cancelTimeoutMillis);
        this.writer = new BacklogWriter(name, backlog, counters, writerQueue, this::wake);
        this.refusals = RateLimitedLog.onePer(LOG, "bridge " + name, Duration.ofSeconds(10));
        this.committer = Executors.newSingleThreadExecutor(task -> {
            Thread committing = new Thread(task, "sluice-bridge-" + name + "-commit");
            committing.setDaemon(true);
            return committing;
        });
        this.thread = new Thread(this::run, "sluice-bridge-" + name);
        this.thread.setDaemon(true);
        this.writer.start();
    }

    /** Starts connecting; until then messages are stored, not sent. */
    public void start() {
        state = BridgeState.CONNECTING;
        thread.start();
    }

    public String name() {
        return name;
    }

    public BridgeCounters counters() {
        return counters;
    }

    public BridgeState state() {
        return state;
    }

    /**
     * Any thread, never blocks: stores {@code record} in the backlog; {@code release} (may be null)
     * runs once it is durable, and is refused ({@link Receipt#refuse}) when the backlog does not
     * store it: its writer's queue is full (counted), the backlog is full, or the write fails. Always
     * true: {@code release} is settled here either way.
     */
    public boolean store(BacklogRecord record, Runnable release) {
        if (!writer.offer(record, release)) {
            Receipt.refuse(release);
        }
        return true;
    }

    /** Any thread, never blocks: sends a QoS 0 message that is not stored if the connection can take it now. */
    public void sendUnstored(BacklogRecord record) {
        if (!state.isConnected() || !remote.sendUnstored(record)) {
            counters.increment(BridgeCounter.QOS0_DROPPED_OFFLINE);
        }
    }

    /** The bridge as status readers see it now. */
    public BridgeStatus status() {
        BridgeState now = state;
        Connection connection = current;
        int window = now.isConnected() && connection != null ? connection.window : 0;
        return new BridgeStatus(name, type, remote.address(), now, backlog.size(), backlog.bytes(), window,
                counters.snapshot(), lastError);
    }

    private void wake() {
        woken = true;
        LockSupport.unpark(thread);
    }

    private void pause(long nanos) {
        if (!woken) {
            LockSupport.parkNanos(this, nanos);
        }
        woken = false;
    }

    private void run() {
        while (!stopping) {
            try {
                switch (state) {
                    case CONNECTING -> connect();
                    case CONNECTED, DRAINING -> serve();
                    case BACKOFF -> waitOut();
                    default -> stopping = true;
                }
            } catch (RuntimeException | Error e) {
                LOG.error("bridge {}: unexpected failure; reconnecting", name, e);
                giveUp(current, "internal error: " + e);
            }
        }
        finish();
    }

    private void connect() {
        Connection connection = new Connection();
        current = connection;
        try {
            remote.connect(connection);
        } catch (RuntimeException e) {
            connection.failed(String.valueOf(e.getMessage()), e);
        }
        while (!stopping && !connection.connected && connection.failure == null) {
            pause(IDLE_WAIT_NANOS);
        }
        if (stopping) {
            return;
        }
        if (connection.failure != null) {
            counters.increment(BridgeCounter.CONNECT_FAILURES);
            lastError = connection.failure;
            enterBackoff("connecting to " + remote.address() + " failed: " + connection.failure);
            return;
        }
        counters.increment(BridgeCounter.CONNECTS);
        connectedAtNanos = System.nanoTime();
        backoffReset = false;
        acks.reset(backlog.start());
        lastBase = -1;
        long waiting = backlog.size();
        LOG.info("bridge {}: connected to {} ({}, window {}); {} messages wait in the backlog", name, remote.address(),
                connection.detail, connection.window, waiting);
        if (waiting > 0) {
            startDraining();
        } else {
            state = BridgeState.CONNECTED;
        }
    }

    private void startDraining() {
        state = BridgeState.DRAINING;
        drainStartNanos = System.nanoTime();
        drainStartAcked = counters.get(BridgeCounter.ACKNOWLEDGED);
    }

    private void serve() {
        Connection connection = current;
        if (connection.failure != null) {
            counters.increment(BridgeCounter.DISCONNECTS);
            lastError = connection.failure;
            enterBackoff("lost the connection to " + remote.address() + ": " + connection.failure);
            return;
        }
        settleAcknowledged();
        sendMore(connection);
        long now = System.currentTimeMillis();
        boolean caughtUp = backlog.size() == 0;
        if (caughtUp && state == BridgeState.DRAINING) {
            commitSoon();
            logDrained();
            state = BridgeState.CONNECTED;
        } else if (!caughtUp && state == BridgeState.CONNECTED && backlog.size() > connection.window) {
            LOG.info("bridge {}: {} messages wait, more than the remote's window of {}: draining", name,
                    backlog.size(), connection.window);
            startDraining();
        }
        if (now >= nextCommitMillis) {
            commitSoon();
            nextCommitMillis = now + COMMIT_INTERVAL_MS;
        }
        checkProgress(connection);
        if (!backoffReset && System.nanoTime() - connectedAtNanos > STABLE_NANOS) {
            // Only a connection that lasted resets the backoff: a remote that accepts and drops at
            // once (a session taken over, a refusal after CONNACK) is not hammered every half second.
            backoff.reset();
            backoffReset = true;
        }
        pause(IDLE_WAIT_NANOS);
    }

    /** Moves the backlog's start over what the remote acknowledged, and the window over what was dropped. */
    private void settleAcknowledged() {
        long base = acks.base();
        if (base > backlog.start()) {
            backlog.acknowledgeUpTo(base);
        }
        long start = backlog.start();
        if (acks.base() < start) {
            acks.skipTo(start);
        }
    }

    /**
     * Hands the remote what its window and lookahead allow. With a lookahead the remote holds a
     * queue of its own, so the bridge refills it in batches (a quarter of the lookahead at least)
     * unless the remote is close to running dry.
     */
    private void sendMore(Connection connection) {
        int limit = connection.window + remote.lookahead();
        int room = acks.room(limit);
        if (room < Math.min(READ_BATCH, remote.lookahead() / 4) && acks.pending() > connection.window) {
            return;
        }
        long next = acks.next();
        while (room > 0 && next < backlog.end() && !stopping && connection.failure == null) {
            List<Backlog.Waiting> waiting = backlog.read(next, Math.min(room, READ_BATCH));
            if (waiting.isEmpty()) {
                return;
            }
            List<Remote.Outgoing> batch = new ArrayList<>(waiting.size());
            long now = System.currentTimeMillis();
            for (Backlog.Waiting w : waiting) {
                acks.sent(w.offset());
                if (w.record() == null) {
                    acks.acknowledge(w.offset()); // damaged: counted and logged by the backlog
                } else if (w.record().message().isExpired(now)) {
                    counters.increment(BridgeCounter.EXPIRED);
                    acks.acknowledge(w.offset());
                } else {
                    if (w.offset() < highestSent) {
                        counters.increment(BridgeCounter.RESENT);
                    }
                    batch.add(new Remote.Outgoing(w.offset(), w.record()));
                }
            }
            highestSent = Math.max(highestSent, waiting.get(waiting.size() - 1).offset() + 1);
            if (!batch.isEmpty()) {
                counters.add(BridgeCounter.SENT, batch.size());
                remote.send(batch);
            }
            room = acks.room(limit);
            next = acks.next();
        }
    }

    /** A connection that leaves sent messages unacknowledged for {@code cancel_timeout} counts as broken. */
    private void checkProgress(Connection connection) {
        long now = System.nanoTime();
        long base = acks.base();
        if (base != lastBase || acks.pending() == 0) {
            lastBase = base;
            lastProgressNanos = now;
            return;
        }
        if (now - lastProgressNanos > cancelTimeoutNanos) {
            String reason = "no acknowledgement for offset " + base + " within cancel_timeout ("
                    + TimeUnit.NANOSECONDS.toMillis(cancelTimeoutNanos) + " ms)";
            remote.disconnect(reason);
            connection.failed(reason, null);
        }
    }

    private void logDrained() {
        long nanos = System.nanoTime() - drainStartNanos;
        long acked = counters.get(BridgeCounter.ACKNOWLEDGED) - drainStartAcked;
        double seconds = Math.max(nanos, 1) / 1e9;
        LOG.info("bridge {}: backlog drained: {} messages acknowledged in {} ms ({} msg/s)", name, acked,
                TimeUnit.NANOSECONDS.toMillis(nanos), Math.round(acked / seconds));
    }

    private void enterBackoff(String why) {
        long delay = backoff.next();
        backoffUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
        state = BridgeState.BACKOFF;
        commitSoon();
        LOG.warn("bridge {}: {}; next attempt in {} ms; {} messages wait in the backlog", name, why, delay,
                backlog.size());
    }

    /**
     * Commits the cursor on the committer thread (an fsync: it must not hold up sending); at most
     * one commit is queued at a time, and it commits the latest start when it runs.
     */
    private void commitSoon() {
        if (backlog.start() > backlog.committed() && commitQueued.compareAndSet(false, true)) {
            committer.execute(() -> {
                commitQueued.set(false);
                backlog.commit();
            });
        }
    }

    private void waitOut() {
        long left = backoffUntilNanos - System.nanoTime();
        if (left <= 0) {
            state = BridgeState.CONNECTING;
            return;
        }
        LockSupport.parkNanos(this, left);
    }

    private void giveUp(Connection connection, String reason) {
        if (connection != null) {
            connection.failed(reason, null);
        }
        remote.disconnect(reason);
        lastError = reason;
        if (!stopping) {
            enterBackoff(reason);
        }
    }

    private void finish() {
        state = BridgeState.STOPPED;
        try {
            settleAcknowledged();
        } catch (RuntimeException e) {
            LOG.warn("bridge {}: settling acknowledgements at shutdown failed", name, e);
        }
        remote.disconnect("the bridge is stopping");
        committer.shutdown();
        try {
            committer.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        backlog.commit();
    }

    /**
     * Stores what taps already handed over, disconnects from the remote and commits the cursor.
     * The backlog stays on disk for the next start.
     */
    @Override
    public void close() {
        writer.close();
        stopping = true;
        LockSupport.unpark(thread);
        if (thread.isAlive()) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            finish();
        }
        remote.close();
        LOG.info("bridge {}: stopped; {} messages wait in the backlog", name, backlog.size());
    }

    /** One connection attempt and what it reported; events of a connection that is not current are ignored. */
    private final class Connection implements Remote.Events {
        private volatile boolean connected;
        private volatile int window;
        private volatile String detail;
        private volatile String failure;

        @Override
        public void connected(int window, String detail) {
            this.window = Math.max(1, window);
            this.detail = detail;
            this.connected = true;
            wake();
        }

        @Override
        public void failed(String reason, Throwable cause) {
            if (failure == null) {
                failure = reason == null ? String.valueOf(cause) : reason;
                if (cause != null && LOG.isDebugEnabled()) {
                    LOG.debug("bridge {}: connection failure", name, cause);
                }
            }
            wake();
        }

        @Override
        public void acknowledged(long offset) {
            if (current == this && acks.acknowledge(offset)) {
                counters.increment(BridgeCounter.ACKNOWLEDGED);
                wake();
            }
        }

        @Override
        public void refused(long offset, BridgeCounter counter, String reason) {
            if (current == this && acks.acknowledge(offset)) {
                counters.increment(counter);
                wake();
                refusals.warn("the remote refused the message at backlog offset " + offset + ": " + reason + "; "
                        + counters.get(counter) + " " + counter.name().toLowerCase(java.util.Locale.ROOT) + " so far");
            }
        }
    }
}
