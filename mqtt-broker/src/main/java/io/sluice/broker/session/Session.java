package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;
import io.sluice.broker.routing.Subscriber;
import io.sluice.broker.routing.Subscription;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;

/**
 * The state MQTT keeps for one client id between and across its network connections
 * (MQTT 5 §4.1): subscriptions, messages queued for it, outbound QoS 1/2 messages not yet
 * acknowledged, inbound QoS 2 packet ids not yet released, and a delayed will.
 *
 * <p>Threading: every event loop may {@link #offer} to a session while its own connection's
 * event loop drains it and handles acknowledgements, so all state is guarded by this object's
 * monitor. Holding it is brief: offers append, drains move entries into an {@link Outbox} that
 * the connection encodes after the lock is released.
 */
public final class Session implements Subscriber {
    /** Session Expiry Interval meaning "never expires" (MQTT 5 §3.1.2.11.2). */
    public static final long NEVER_EXPIRES = 0xFFFFFFFFL;

    private final String clientId;
    private final BrokerMetrics metrics;
    private final boolean queueQos0;
    private final OutboundQueue queue;
    private final InflightWindow inflight = new InflightWindow();
    private final Set<Integer> inboundQos2 = new HashSet<>();
    private final Map<String, Subscription> subscriptions = new HashMap<>();

    private volatile SessionLink link;
    private volatile long expiryIntervalSeconds;
    private boolean drainRequested;
    private Will pendingWill;
    private ScheduledFuture<?> willTask;
    private ScheduledFuture<?> expiryTask;
    private long dropped;

    public Session(String clientId, SessionLimits limits, BrokerMetrics metrics) {
        this.clientId = clientId;
        this.metrics = metrics;
        this.queueQos0 = limits.queueQos0();
        this.queue = new OutboundQueue(limits.maxQueuedMessages(), limits.maxQueuedBytes());
    }

    @Override
    public String clientId() {
        return clientId;
    }

    @Override
    public boolean isOnline() {
        return link != null;
    }

    @Override
    public boolean isPersistent() {
        return expiryIntervalSeconds > 0;
    }

    public long expiryIntervalSeconds() {
        return expiryIntervalSeconds;
    }

    public void expiryIntervalSeconds(long seconds) {
        this.expiryIntervalSeconds = seconds;
    }

    // ---- delivery, from any thread ----

    @Override
    public synchronized boolean offer(Delivery delivery) {
        if (link == null && delivery.qos() == 0 && !queueQos0) {
            metrics.increment(BrokerCounter.MESSAGES_DROPPED_OFFLINE_QOS0);
            return false;
        }
        if (!queue.offer(delivery)) {
            metrics.increment(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL);
            dropped++;
            return false;
        }
        requestDrainLocked();
        return true;
    }

    private void requestDrainLocked() {
        SessionLink current = link;
        if (current != null && !drainRequested) {
            drainRequested = true;
            current.requestDrain();
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
            Delivery next = queue.peek();
            if (next == null) {
                return false;
            }
            if (next.message().isExpired(nowMillis)) {
                queue.poll();
                metrics.increment(BrokerCounter.MESSAGES_EXPIRED);
                continue;
            }
            if (next.qos() > 0 && inflight.size() >= window) {
                return false; // an acknowledgement will free the window and drain again
            }
            queue.poll();
            int packetId = next.qos() == 0 ? 0 : inflight.add(next, nowNanos).packetId;
            out.publish(next, packetId, false);
            budget -= next.message().weight();
        }
        return !queue.isEmpty();
    }

    /** After a reconnect: every unacknowledged message again, PUBLISH with DUP or PUBREL (MQTT 5 §4.4). */
    public synchronized void resendInflight(Outbox out, long nowNanos) {
        for (InflightWindow.Entry entry : inflight.entries()) {
            entry.sentNanos = nowNanos;
            if (entry.state == InflightWindow.State.AWAITING_ACK) {
                out.publish(entry.delivery, entry.packetId, true);
            } else {
                out.pubrel(entry.packetId);
            }
        }
    }

    /** MQTT 3.x retry: resends what has waited longer than {@code olderThanNanos} for its acknowledgement. */
    public synchronized void resendOverdue(Outbox out, long nowNanos, long olderThanNanos) {
        for (InflightWindow.Entry entry : inflight.entries()) {
            if (nowNanos - entry.sentNanos >= olderThanNanos) {
                entry.sentNanos = nowNanos;
                if (entry.state == InflightWindow.State.AWAITING_ACK) {
                    out.publish(entry.delivery, entry.packetId, true);
                } else {
                    out.pubrel(entry.packetId);
                }
            }
        }
    }

    // ---- acknowledgements of outbound messages, on the connection's event loop ----

    /** PUBACK for a QoS 1 message; returns false if no such message was waiting. */
    public synchronized boolean onPubAck(int packetId) {
        InflightWindow.Entry entry = inflight.get(packetId);
        if (entry == null || entry.delivery.qos() != 1) {
            return false;
        }
        complete(packetId);
        return true;
    }

    /** What the connection must answer to a PUBREC. */
    public enum PubRecOutcome { SEND_PUBREL, UNKNOWN_PACKET_ID, DONE }

    /**
     * PUBREC for a QoS 2 message. A failure reason code ends the exchange (MQTT 5 §4.3.3);
     * otherwise the message now waits for PUBCOMP and the caller sends PUBREL.
     */
    public synchronized PubRecOutcome onPubRec(int packetId, boolean failed) {
        InflightWindow.Entry entry = inflight.get(packetId);
        if (entry == null || entry.delivery.qos() != 2) {
            return PubRecOutcome.UNKNOWN_PACKET_ID;
        }
        if (failed) {
            complete(packetId);
            return PubRecOutcome.DONE;
        }
        entry.state = InflightWindow.State.AWAITING_COMP;
        return PubRecOutcome.SEND_PUBREL;
    }

    /** PUBCOMP for a QoS 2 message; returns false if no such message was waiting. */
    public synchronized boolean onPubComp(int packetId) {
        InflightWindow.Entry entry = inflight.get(packetId);
        if (entry == null || entry.state != InflightWindow.State.AWAITING_COMP) {
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
        inflight.remove(packetId);
        if (!queue.isEmpty()) {
            requestDrainLocked();
        }
    }

    // ---- inbound QoS 2, on the connection's event loop ----

    /** Records an inbound QoS 2 PUBLISH; returns false if the id is already held (a resend: do not route again). */
    public synchronized boolean receiveQos2(int packetId) {
        return inboundQos2.add(packetId);
    }

    /** PUBREL from the client; returns false if the packet id was unknown. */
    public synchronized boolean releaseQos2(int packetId) {
        return inboundQos2.remove(packetId);
    }

    /** Inbound QoS 2 messages waiting for PUBREL; they count against the server's Receive Maximum. */
    public synchronized int pendingInboundQos2() {
        return inboundQos2.size();
    }

    // ---- subscriptions ----

    /** Stores a subscription by its raw filter; returns the one it replaced, or null. */
    public synchronized Subscription putSubscription(Subscription subscription) {
        return subscriptions.put(subscription.filter().raw(), subscription);
    }

    /** Removes the subscription with this raw filter; returns it, or null. */
    public synchronized Subscription removeSubscription(String rawFilter) {
        return subscriptions.remove(rawFilter);
    }

    public synchronized List<Subscription> subscriptions() {
        return new ArrayList<>(subscriptions.values());
    }

    public synchronized int subscriptionCount() {
        return subscriptions.size();
    }

    // ---- attachment and lifecycle, used by the registry ----

    /** Attaches a connection and returns the one it replaces (to be closed), or null. */
    synchronized SessionLink attach(SessionLink newLink) {
        SessionLink previous = link;
        link = newLink;
        drainRequested = false;
        cancelTimers();
        pendingWill = null;
        return previous;
    }

    /** Detaches whatever connection is attached, keeping the rest; returns it, or null. */
    synchronized SessionLink unlink() {
        SessionLink previous = link;
        link = null;
        drainRequested = false;
        return previous;
    }

    /** Detaches {@code oldLink} if it is still the attached one; returns whether it was. */
    synchronized boolean detach(SessionLink oldLink) {
        if (link != oldLink) {
            return false;
        }
        link = null;
        drainRequested = false;
        return true;
    }

    /** Takes out every delivery of a shared subscription not yet received by the client. */
    synchronized List<Delivery> takeSharedDeliveries() {
        List<Delivery> taken = new ArrayList<>();
        queue.removeIf(d -> d.shareGroup() != null, taken::add);
        List<Integer> ids = new ArrayList<>();
        for (InflightWindow.Entry entry : inflight.entries()) {
            if (entry.delivery.shareGroup() != null && entry.state == InflightWindow.State.AWAITING_ACK) {
                taken.add(entry.delivery);
                ids.add(entry.packetId);
            }
        }
        ids.forEach(inflight::remove);
        return taken;
    }

    synchronized void pendingWill(Will will, ScheduledFuture<?> task) {
        this.pendingWill = will;
        this.willTask = task;
    }

    /** Removes and returns the delayed will, if one is pending. */
    synchronized Will takePendingWill() {
        Will will = pendingWill;
        pendingWill = null;
        if (willTask != null) {
            willTask.cancel(false);
            willTask = null;
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
        int purged = queue.removeIf(d -> d.message().isExpired(nowMillis), d -> { });
        metrics.add(BrokerCounter.MESSAGES_EXPIRED, purged);
        return purged;
    }

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
