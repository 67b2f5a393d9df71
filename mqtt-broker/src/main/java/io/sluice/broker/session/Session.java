package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;
import io.sluice.broker.routing.Subscriber;
import io.sluice.broker.routing.Subscription;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;

/**
 * The state MQTT keeps for one client id between and across its network connections
 * (MQTT 5 §4.1): subscriptions, deliveries queued for it, outbound QoS 1/2 deliveries not yet
 * acknowledged, inbound QoS 2 packet ids not yet released, and a delayed will.
 *
 * <p>Threading: every event loop may {@link #offer} to a session while its own connection's
 * event loop drains it and handles acknowledgements, so all state is guarded by this object's
 * monitor. Holding it is brief: offers append, drains move entries into an {@link Outbox} that
 * the connection encodes after the lock is released.
 *
 * <p>Persistence: a persistent session (expiry interval above 0) reports every change to its
 * {@link SessionJournal} while holding the lock, so the journal sees one session's changes in
 * order. Deliveries are journaled when they are QoS 1/2, or QoS 0 queued while offline; a QoS 0
 * delivery to a connected client lives for microseconds and is not worth a disk write.
 */
public final class Session implements Subscriber {
    /** Session Expiry Interval meaning "never expires" (MQTT 5 §3.1.2.11.2). */
    public static final long NEVER_EXPIRES = 0xFFFFFFFFL;
    /**
     * A session whose full queue dropped a message within this long reads slower than it is fed,
     * which holding publishers does not cure: it signals no {@link DrainLag} until it has gone this
     * long without a drop.
     */
    private static final long SLOW_READER_NANOS = 1_000_000_000L;

    private final String clientId;
    private final BrokerMetrics metrics;
    private final SessionJournal journal;
    private final boolean queueQos0;
    private final QueueBudget budget;
    private final OutboundQueue queue;
    private final InflightWindow inflight = new InflightWindow();
    private final Set<Integer> inboundQos2 = new HashSet<>();
    private final Map<String, Subscription> subscriptions = new LinkedHashMap<>();

    private volatile SessionLink link;
    private volatile long expiryIntervalSeconds;
    private long nextSeq;
    private long disconnectedAtMillis;
    private boolean drainRequested;
    private Will pendingWill;
    private long willDueAtMillis;
    private ScheduledFuture<?> willTask;
    private ScheduledFuture<?> expiryTask;
    private long dropped;
    /** When the full queue last dropped a message ({@link System#nanoTime}); a new session's lies long past. */
    private long lastQueueFullNanos = System.nanoTime() - SLOW_READER_NANOS;
    private boolean ended;

    public Session(String clientId, SessionLimits limits, BrokerMetrics metrics, SessionJournal journal) {
        this.clientId = clientId;
        this.metrics = metrics;
        this.journal = journal;
        this.queueQos0 = limits.queueQos0();
        this.budget = limits.budget();
        this.queue = new OutboundQueue(limits.maxQueuedMessages(), limits.maxQueuedBytes(), budget);
    }

    @Override
    public String clientId() {
        return clientId;
    }

    @Override
    public boolean isOnline() {
        return link != null;
    }

    /** The connection attached now, or null while offline; for status readers and kicks. */
    public SessionLink link() {
        return link;
    }

    @Override
    public boolean isPersistent() {
        return expiryIntervalSeconds > 0;
    }

    public long expiryIntervalSeconds() {
        return expiryIntervalSeconds;
    }

    /** Sets the expiry interval (CONNECT, or DISCONNECT in MQTT 5). */
    public synchronized void expiryIntervalSeconds(long seconds) {
        this.expiryIntervalSeconds = seconds;
        saveSnapshot();
    }

    /** Whether changes are reported to the journal: a persistent session of a broker that keeps state. */
    public synchronized boolean journaled() {
        return !ended && expiryIntervalSeconds > 0 && journal.enabled();
    }

    /**
     * Marks the session as ended and tells the journal to forget it. Under the lock, so that
     * every change reported before is forgotten too and nothing is reported after.
     */
    synchronized void end() {
        if (!ended) {
            ended = true;
            queue.clear();
            if (journal.enabled()) {
                journal.sessionEnded(clientId);
            }
        }
    }

    // ---- delivery, from any thread ----

    @Override
    public synchronized boolean offer(Delivery delivery) {
        if (ended) {
            return false; // removed from the router just after this offer began
        }
        boolean offline = link == null;
        if (offline && delivery.qos() == 0 && !queueQos0) {
            metrics.increment(BrokerCounter.MESSAGES_DROPPED_OFFLINE_QOS0);
            return false;
        }
        if (offline && !budget.hasRoom(delivery.message().weight())) {
            metrics.increment(BrokerCounter.MESSAGES_DROPPED_QUEUED_BYTES);
            dropped++;
            return false;
        }
        if (!queue.fits(delivery.message().weight())) {
            metrics.increment(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL);
            dropped++;
            lastQueueFullNanos = System.nanoTime();
            return false;
        }
        PendingDelivery pending = new PendingDelivery(nextSeq++, delivery);
        queue.add(pending);
        if (delivery.qos() > 0 || offline) {
            save(pending);
        }
        requestDrainLocked();
        SessionLink current = link;
        if (current != null && queue.isBacklogged() && current.keepsUp() && !droppedLately()) {
            DrainLag.signal();
        }
        return true;
    }

    private boolean droppedLately() {
        return System.nanoTime() - lastQueueFullNanos < SLOW_READER_NANOS;
    }

    private void requestDrainLocked() {
        SessionLink current = link;
        if (current != null && !drainRequested) {
            drainRequested = true;
            current.requestDrain();
        }
    }

    private void save(PendingDelivery pending) {
        if (journaled()) {
            journal.deliverySaved(clientId, pending.stored());
            pending.journaled = true;
        }
    }

    private void forget(PendingDelivery pending) {
        if (pending.journaled && !ended) {
            journal.deliveryRemoved(clientId, pending.seq);
            pending.journaled = false;
        }
    }

    // ---- draining, on the attached connection's event loop ----

    /**
     * Moves queued deliveries into {@code out} while the inflight window has room, at most
     * {@code budgetBytes} worth. Expired messages are discarded on the way. Returns true if
     * deliverable messages remain, so the caller should drain again once it can write.
     */
    public synchronized boolean drain(Outbox out, int window, long budgetBytes, long nowMillis, long nowNanos) {
        drainRequested = false;
        long budget = budgetBytes;
        while (budget > 0) {
            PendingDelivery next = queue.peek();
            if (next == null) {
                return false;
            }
            if (next.delivery.message().isExpired(nowMillis)) {
                forget(queue.poll());
                metrics.increment(BrokerCounter.MESSAGES_EXPIRED);
                continue;
            }
            if (next.delivery.qos() > 0 && inflight.size() >= window) {
                return false; // an acknowledgement will free the window and drain again
            }
            queue.poll();
            if (next.delivery.qos() == 0) {
                forget(next);
            } else {
                inflight.add(next, nowNanos);
                save(next);
            }
            out.publish(next.delivery, next.packetId, false);
            waitForJournalIfQos2(out, next);
            budget -= next.weight();
        }
        return !queue.isEmpty();
    }

    /** After a reconnect: every unacknowledged delivery again, PUBLISH with DUP or PUBREL (MQTT 5 §4.4). */
    public synchronized void resendInflight(Outbox out, long nowNanos) {
        for (PendingDelivery pending : inflight.entries()) {
            resend(out, pending, nowNanos);
        }
    }

    /** MQTT 3.x retry: resends what has waited longer than {@code olderThanNanos} for its acknowledgement. */
    public synchronized void resendOverdue(Outbox out, long nowNanos, long olderThanNanos) {
        for (PendingDelivery pending : inflight.entries()) {
            if (nowNanos - pending.sentNanos >= olderThanNanos) {
                resend(out, pending, nowNanos);
            }
        }
    }

    private void resend(Outbox out, PendingDelivery pending, long nowNanos) {
        pending.sentNanos = nowNanos;
        if (pending.stage == DeliveryStage.AWAITING_ACK) {
            out.publish(pending.delivery, pending.packetId, true);
        } else {
            out.pubrel(pending.packetId);
        }
        waitForJournalIfQos2(out, pending);
    }

    /**
     * Exactly once across a crash: once the client has a QoS 2 PUBLISH it holds the packet id and
     * takes a resend under that id for a duplicate, and once it has a PUBREL it forgets the id. If
     * the broker restarted without the delivery's stage on disk, it would send the message again
     * as new (a QoS 2 duplicate), or a PUBLISH the client already released. So a journaled QoS 2
     * PUBLISH or PUBREL leaves only once the journal has written the stage (and everything
     * reported before it, such as the publisher's packet id). Resends wait too: the stage they
     * repeat may not be written yet.
     */
    private void waitForJournalIfQos2(Outbox out, PendingDelivery pending) {
        if (pending.delivery.qos() == 2 && journaled()) {
            out.waitForJournal();
        }
    }

    // ---- acknowledgements of outbound deliveries, on the connection's event loop ----

    /** PUBACK for a QoS 1 delivery; returns false if no such delivery was waiting. */
    public synchronized boolean onPubAck(int packetId) {
        PendingDelivery pending = inflight.get(packetId);
        if (pending == null || pending.delivery.qos() != 1) {
            return false;
        }
        complete(packetId);
        return true;
    }

    /** What the connection must answer to a PUBREC. */
    public enum PubRecOutcome { SEND_PUBREL, UNKNOWN_PACKET_ID, DONE }

    /**
     * PUBREC for a QoS 2 delivery. A failure reason code ends the exchange (MQTT 5 §4.3.3);
     * otherwise the delivery now waits for PUBCOMP and its PUBREL is put in {@code out}, which the
     * caller writes (SEND_PUBREL).
     */
    public synchronized PubRecOutcome onPubRec(int packetId, boolean failed, Outbox out) {
        PendingDelivery pending = inflight.get(packetId);
        if (pending == null || pending.delivery.qos() != 2) {
            return PubRecOutcome.UNKNOWN_PACKET_ID;
        }
        if (failed) {
            complete(packetId);
            return PubRecOutcome.DONE;
        }
        if (pending.stage != DeliveryStage.AWAITING_COMP) {
            pending.stage = DeliveryStage.AWAITING_COMP;
            save(pending);
        }
        out.pubrel(packetId);
        waitForJournalIfQos2(out, pending);
        return PubRecOutcome.SEND_PUBREL;
    }

    /** PUBCOMP for a QoS 2 delivery; returns false if no such delivery was waiting. */
    public synchronized boolean onPubComp(int packetId) {
        PendingDelivery pending = inflight.get(packetId);
        if (pending == null || pending.stage != DeliveryStage.AWAITING_COMP) {
            return false;
        }
        complete(packetId);
        return true;
    }

    /**
     * Ends a QoS 1/2 exchange the connection could not send (larger than the client's Maximum
     * Packet Size): the server behaves as if it had completed (MQTT 5 §3.1.2.11.4).
     */
    public synchronized void discard(int packetId) {
        complete(packetId);
    }

    private void complete(int packetId) {
        PendingDelivery pending = inflight.remove(packetId);
        if (pending != null) {
            forget(pending);
        }
        if (!queue.isEmpty()) {
            requestDrainLocked();
        }
    }

    // ---- inbound QoS 2, on the connection's event loop ----

    /** Records an inbound QoS 2 PUBLISH; returns false if the id is already held (a resend: do not route again). */
    public synchronized boolean receiveQos2(int packetId) {
        boolean added = inboundQos2.add(packetId);
        if (added && journaled()) {
            journal.qos2Received(clientId, packetId);
        }
        return added;
    }

    /** PUBREL from the client; returns false if the packet id was unknown. */
    public synchronized boolean releaseQos2(int packetId) {
        boolean removed = inboundQos2.remove(packetId);
        if (removed && journaled()) {
            journal.qos2Released(clientId, packetId);
        }
        return removed;
    }

    /** Inbound QoS 2 messages waiting for PUBREL; they count against the server's Receive Maximum. */
    public synchronized int pendingInboundQos2() {
        return inboundQos2.size();
    }

    // ---- subscriptions ----

    /** Stores a subscription by its raw filter; returns the one it replaced, or null. */
    public synchronized Subscription putSubscription(Subscription subscription) {
        Subscription previous = subscriptions.put(subscription.filter().raw(), subscription);
        saveSnapshot();
        return previous;
    }

    /** Removes the subscription with this raw filter; returns it, or null. */
    public synchronized Subscription removeSubscription(String rawFilter) {
        Subscription removed = subscriptions.remove(rawFilter);
        if (removed != null) {
            saveSnapshot();
        }
        return removed;
    }

    public synchronized List<Subscription> subscriptions() {
        return new ArrayList<>(subscriptions.values());
    }

    /** Whether a subscription with this raw filter exists (subscribing again replaces it). */
    public synchronized boolean hasSubscription(String rawFilter) {
        return subscriptions.containsKey(rawFilter);
    }

    public synchronized int subscriptionCount() {
        return subscriptions.size();
    }

    // ---- attachment and lifecycle, used by the registry ----

    /** Attaches a connection and returns the one it replaces (to be closed), or null. */
    synchronized SessionLink attach(SessionLink newLink) {
        SessionLink previous = link;
        link = newLink;
        queue.countInBudget(newLink == null);
        drainRequested = false;
        cancelTimers();
        pendingWill = null;
        willDueAtMillis = 0;
        disconnectedAtMillis = 0;
        saveSnapshot();
        return previous;
    }

    /** Detaches whatever connection is attached, keeping the rest; returns it, or null. */
    synchronized SessionLink unlink() {
        SessionLink previous = link;
        link = null;
        queue.countInBudget(true);
        drainRequested = false;
        return previous;
    }

    /** Detaches {@code oldLink} if it is still the attached one; returns whether it was. */
    synchronized boolean detach(SessionLink oldLink, long nowMillis) {
        if (link != oldLink) {
            return false;
        }
        link = null;
        queue.countInBudget(true);
        drainRequested = false;
        disconnectedAtMillis = nowMillis;
        saveSnapshot();
        return true;
    }

    /** Takes out every delivery of a shared subscription not yet received by the client. */
    synchronized List<Delivery> takeSharedDeliveries() {
        List<Delivery> taken = new ArrayList<>();
        queue.removeIf(p -> p.delivery.shareGroup() != null, p -> {
            forget(p);
            taken.add(p.delivery);
        });
        List<PendingDelivery> unreceived = new ArrayList<>();
        for (PendingDelivery pending : inflight.entries()) {
            if (pending.delivery.shareGroup() != null && pending.stage == DeliveryStage.AWAITING_ACK) {
                unreceived.add(pending);
            }
        }
        for (PendingDelivery pending : unreceived) {
            inflight.remove(pending.packetId);
            forget(pending);
            taken.add(pending.delivery);
        }
        return taken;
    }

    synchronized void pendingWill(Will will, long dueAtMillis, ScheduledFuture<?> task) {
        this.pendingWill = will;
        this.willDueAtMillis = dueAtMillis;
        this.willTask = task;
        saveSnapshot();
    }

    /** Removes and returns the delayed will, if one is pending. */
    synchronized Will takePendingWill() {
        Will will = pendingWill;
        pendingWill = null;
        willDueAtMillis = 0;
        if (willTask != null) {
            willTask.cancel(false);
            willTask = null;
        }
        if (will != null) {
            saveSnapshot();
        }
        return will;
    }

    synchronized void expiryTask(ScheduledFuture<?> task) {
        this.expiryTask = task;
    }

    private void cancelTimers() {
        if (willTask != null) {
            willTask.cancel(false);
            willTask = null;
        }
        if (expiryTask != null) {
            expiryTask.cancel(false);
            expiryTask = null;
        }
    }

    /** Drops queued messages whose expiry has passed, so an offline queue does not hold them until reconnect. */
    synchronized int purgeExpired(long nowMillis) {
        int purged = queue.removeIf(p -> p.delivery.message().isExpired(nowMillis), this::forget);
        metrics.add(BrokerCounter.MESSAGES_EXPIRED, purged);
        return purged;
    }

    // ---- persistence ----

    private void saveSnapshot() {
        if (journaled()) {
            journal.sessionSaved(snapshotLocked());
        }
    }

    /** The session's metadata as the journal keeps it. */
    public synchronized SessionSnapshot snapshot() {
        return snapshotLocked();
    }

    private SessionSnapshot snapshotLocked() {
        return new SessionSnapshot(clientId, expiryIntervalSeconds, disconnectedAtMillis,
                new ArrayList<>(subscriptions.values()), pendingWill, willDueAtMillis);
    }

    /**
     * Rebuilds what a restart recovered: offline since {@code snapshot.disconnectedAtMillis()},
     * with its deliveries in sequence order and its inbound QoS 2 packet ids. Nothing is
     * journaled again: it is already in the journal.
     */
    synchronized void restore(SessionSnapshot snapshot, Collection<StoredDelivery> deliveries,
                              Collection<Integer> inboundPacketIds) {
        expiryIntervalSeconds = snapshot.expiryInterval();
        // Connected when the broker stopped: the connection ended with the broker, so count from now.
        disconnectedAtMillis = snapshot.disconnectedAtMillis() == 0
                ? System.currentTimeMillis() : snapshot.disconnectedAtMillis();
        pendingWill = snapshot.pendingWill();
        willDueAtMillis = snapshot.willDueAtMillis();
        for (Subscription subscription : snapshot.subscriptions()) {
            subscriptions.put(subscription.filter().raw(), subscription);
        }
        inboundQos2.addAll(inboundPacketIds);
        for (StoredDelivery stored : deliveries) {
            PendingDelivery pending = new PendingDelivery(stored.seq(), stored.delivery());
            pending.journaled = true;
            pending.packetId = stored.packetId();
            pending.stage = stored.stage();
            if (stored.stage() == DeliveryStage.QUEUED) {
                queue.add(pending);
            } else {
                inflight.restore(pending);
            }
            nextSeq = Math.max(nextSeq, stored.seq() + 1);
        }
    }

    /** When its last connection ended, for the expiry countdown; 0 while connected. */
    synchronized long disconnectedAtMillis() {
        return disconnectedAtMillis;
    }

    // ---- figures ----

    /** Messages queued and not yet sent. */
    public synchronized int queuedMessages() {
        return queue.size();
    }

    /** Outbound messages sent and not yet acknowledged. */
    public synchronized int inflightMessages() {
        return inflight.size();
    }

    /** Deliveries this session has dropped because its queue was full. */
    public synchronized long droppedMessages() {
        return dropped;
    }

    @Override
    public String toString() {
        return "session '" + clientId + "'";
    }
}
