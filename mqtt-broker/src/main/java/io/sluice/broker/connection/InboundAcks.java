package io.sluice.broker.connection;

import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.routing.PublishAck;
import io.sluice.net.RefusalLog;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Acknowledgements of inbound QoS 1/2 PUBLISHes that wait for durability, sent in the order the
 * PUBLISHes arrived, as MQTT requires (MQTT 3.1.1 §4.6, MQTT 5 §4.6): a PUBACK that is ready
 * waits for the ones before it. The queue belongs to the connection's event loop; readiness
 * arrives from other threads and schedules one release task at a time.
 *
 * <p>A message that something holding its acknowledgement could not store (a full disk, an offline
 * log, a full capture queue) is never acknowledged as stored: an MQTT 5 client gets PUBACK or
 * PUBREC 0x97 (Quota exceeded), an MQTT 3.1.1 client gets nothing, so it sends the PUBLISH again
 * (at the latest when it reconnects). A refused QoS 2 packet id is forgotten, so that the PUBLISH
 * sent again is routed again rather than taken for a duplicate of one that was stored.
 */
final class InboundAcks {
    private static final int QUOTA_EXCEEDED = 0x97;
    private final Connection c;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable release = this::release;
    private int pendingQos1;

    InboundAcks(Connection connection) {
        this.c = connection;
    }

    /** One acknowledgement in the queue. */
    final class Pending extends PublishAck {
        private final int packetId;
        private final int qos;
        private volatile boolean ready;

        private Pending(int packetId, int qos) {
            this.packetId = packetId;
            this.qos = qos;
        }

        @Override
        protected void ready() {
            ready = true;
            if (scheduled.compareAndSet(false, true)) {
                c.ctx.executor().execute(release);
            }
        }
    }

    /** Queues the acknowledgement of a PUBLISH just received; on the event loop. */
    Pending add(int packetId, int qos) {
        Pending pending = new Pending(packetId, qos);
        queue.addLast(pending);
        if (qos == 1) {
            pendingQos1++;
        }
        return pending;
    }

    /** QoS 1 PUBLISHes not yet acknowledged; they count against the server's Receive Maximum. */
    int pendingQos1() {
        return pendingQos1;
    }

    /** Answers a PUBLISH whose message was not stored everywhere it had to be; true if a packet was written. */
    private boolean notStored(Pending pending) {
        c.broker.metrics().increment(BrokerCounter.PUBLISH_NOT_STORED);
        if (pending.qos == 2) {
            c.client().session().releaseQos2(pending.packetId);
        }
        RefusalLog.log("PUBLISH {} (QoS {}) of client '{}' from {} not acknowledged as stored: a capture, stream, bridge or "
                + "the broker state could not store it", pending.packetId, pending.qos, c.clientId(), c.remoteAddress());
        if (!c.isMqtt5()) {
            return false;
        }
        c.ctx.write(pending.qos == 1 ? Acks.pubAck(pending.packetId, QUOTA_EXCEEDED) : Acks.pubRec(pending.packetId, QUOTA_EXCEEDED));
        return true;
    }

    private void release() {
        scheduled.set(false);
        boolean wrote = false;
        while (!queue.isEmpty() && queue.peekFirst().ready) {
            Pending pending = queue.pollFirst();
            if (pending.qos == 1) {
                pendingQos1--;
            }
            if (pending.stored()) {
                c.ctx.write(pending.qos == 1 ? Acks.pubAck(pending.packetId, 0) : Acks.pubRec(pending.packetId, 0));
                wrote = true;
            } else {
                wrote |= notStored(pending);
            }
        }
        if (wrote) {
            c.ctx.flush();
        }
    }
}
