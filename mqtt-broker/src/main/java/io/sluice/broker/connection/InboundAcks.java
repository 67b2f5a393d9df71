package io.sluice.broker.connection;

import io.sluice.broker.routing.PublishAck;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Acknowledgements of inbound QoS 1/2 PUBLISHes that wait for durability, sent in the order the
 * PUBLISHes arrived, as MQTT requires (MQTT 3.1.1 §4.6, MQTT 5 §4.6): a PUBACK that is ready
 * waits for the ones before it. The queue belongs to the connection's event loop; readiness
 * arrives from other threads and schedules one release task at a time.
 */
final class InboundAcks {
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

    private void release() {
        scheduled.set(false);
        boolean wrote = false;
        while (!queue.isEmpty() && queue.peekFirst().ready) {
            Pending pending = queue.pollFirst();
            if (pending.qos == 1) {
                pendingQos1--;
                c.ctx.write(Acks.pubAck(pending.packetId, 0));
            } else {
                c.ctx.write(Acks.pubRec(pending.packetId, 0));
            }
            wrote = true;
        }
        if (wrote) {
            c.ctx.flush();
        }
    }
}
