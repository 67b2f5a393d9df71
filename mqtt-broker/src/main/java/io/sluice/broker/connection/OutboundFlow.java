package io.sluice.broker.connection;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.broker.codec.PublishEncoder;
import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.session.Outbox;
import io.sluice.broker.session.Session;

import java.util.concurrent.TimeUnit;

/**
 * Messages from the broker to one client (MQTT 5 §4.3): drains the session into the socket
 * while the inflight window and the channel's write buffer allow, encodes each PUBLISH with
 * the client's topic aliases and size limit, and handles the client's PUBACK, PUBREC and
 * PUBCOMP. A slow client fills its bounded write buffer, then its session queue (bounded, with
 * drops counted), and never the broker's memory.
 *
 * <p>An outbox that {@linkplain Outbox#waitsForJournal() waits for the journal} (a persistent
 * session's QoS 2 PUBLISH or PUBREL) is held, in order with everything written after it, until
 * the state journal has written what the session reported; meanwhile the session is not drained,
 * so at most one drain's worth waits in memory.
 *
 * <p>Owned by the connection's event loop.
 */
final class OutboundFlow {
    private final Connection c;
    private final Runnable drainTask = this::drain;
    private final Runnable releaseHeld = this::releaseHeld;
    /** What waits for the state journal, in the order it was to be written; owned by the event loop. */
    private final Outbox held = new Outbox();
    private boolean holding;
    private ScheduledFuture<?> retryTask;
    /** In {@link PendingDrains}' list of connections to drain; owned by the event loop. */
    boolean drainPending;
    /** In {@link PendingDrains}' list of connections to flush; owned by the event loop. */
    boolean flushPending;

    OutboundFlow(Connection connection) {
        this.c = connection;
    }

    Runnable drainTask() {
        return drainTask;
    }

    /** After CONNACK: resend what was unacknowledged (DUP), then drain the queue. */
    void resume() {
        Session session = c.client().session();
        session.resendInflight(c.outbox, System.nanoTime());
        writeOutbox();
        drain();
    }

    /**
     * Starts the MQTT 3.x retry timer when the first QoS 1/2 message goes out: a client that only
     * ever gets QoS 0 (or connects only briefly, as in a connection storm) costs no timer.
     */
    private void startRetryTimer() {
        long retryMillis = c.broker.settings().retryIntervalMillis();
        if (retryTask == null && !c.isMqtt5() && retryMillis > 0 && c.ctx.channel().isActive()) {
            retryTask = c.ctx.executor().scheduleAtFixedRate(this::retry, retryMillis, retryMillis,
                    TimeUnit.MILLISECONDS);
            c.ctx.channel().closeFuture().addListener(f -> retryTask.cancel(false));
        }
    }

    /** Moves queued messages into the socket; flushes once for the whole batch. */
    void drain() {
        boolean more = drainUnflushed();
        c.ctx.flush();
        Channel channel = c.ctx.channel();
        if (more && channel.isWritable()) {
            channel.eventLoop().execute(drainTask); // let other channels of this loop run first
        }
    }

    /**
     * Moves queued messages into the channel without flushing, while the inflight window and the
     * write buffer allow; returns whether deliverable messages remain. Bytes written but not yet
     * flushed count against the channel's writability, so when they alone fill the write buffer
     * they are flushed to the kernel first: otherwise messages would wait in the session queue
     * (and be dropped beyond {@code max_mqueue_len}) while the socket's buffers are empty.
     */
    boolean drainUnflushed() {
        Channel channel = c.ctx.channel();
        ConnectedClient client = c.client();
        if (!channel.isActive() || client == null || holding) {
            return false; // once what is held is written, releaseHeld drains again
        }
        long budget = channel.bytesBeforeUnwritable();
        if (budget <= 0) {
            c.ctx.flush();
            budget = channel.bytesBeforeUnwritable();
            if (budget <= 0) {
                return false; // channelWritabilityChanged drains again once the client has read
            }
        }
        int window = Math.min(client.limits().receiveMaximum(), c.broker.settings().maxInflightWindow());
        boolean more = client.session().drain(c.outbox, window, budget, System.currentTimeMillis(), System.nanoTime());
        writeOutbox();
        return more;
    }

    private void retry() {
        long interval = TimeUnit.MILLISECONDS.toNanos(c.broker.settings().retryIntervalMillis());
        c.client().session().resendOverdue(c.outbox, System.nanoTime(), interval);
        if (c.outbox.size() > 0) {
            writeOutbox();
            c.ctx.flush();
        }
    }

    /** Writes the outbox, or holds it until the state journal has written what it depends on. */
    private void writeOutbox() {
        Outbox outbox = c.outbox;
        if (holding) {
            outbox.moveTo(held); // behind what is held, to keep the order
        } else if (outbox.waitsForJournal()) {
            outbox.moveTo(held);
            holding = true;
            c.broker.sessions().journal().whenWritten(() -> c.ctx.executor().execute(releaseHeld));
        } else {
            write(outbox);
        }
    }

    /**
     * The journal wrote (or failed to write: forwarding goes on, and only exactly once across a
     * crash is lost) what the held packets depend on: writes them and drains again.
     */
    private void releaseHeld() {
        holding = false;
        if (!c.ctx.channel().isActive() || c.client() == null) {
            held.clear(); // gone: the session resends what is in flight to the next connection
            return;
        }
        write(held);
        drain();
    }

    private void write(Outbox outbox) {
        long now = System.currentTimeMillis();
        try {
            for (int i = 0; i < outbox.size(); i++) {
                if (outbox.packetId(i) != 0) {
                    startRetryTimer();
                }
                if (outbox.isPubRel(i)) {
                    c.ctx.write(Acks.pubRel(outbox.packetId(i), 0));
                } else {
                    writePublish(outbox.delivery(i), outbox.packetId(i), outbox.isDup(i), now);
                }
            }
        } finally {
            outbox.clear();
        }
    }

    private void writePublish(Delivery delivery, int packetId, boolean dup, long now) {
        ConnectedClient client = c.client();
        Message message = delivery.message();
        boolean v5 = client.isMqtt5();
        long expiry = v5 ? message.remainingExpirySeconds(now) : -1;
        int alias = v5 ? client.aliases().outboundAlias(message.topic()) : 0;
        boolean sendTopic = alias == 0;
        boolean wantsAlias = v5 && alias == 0;
        PublishEncoder.Header header = new PublishEncoder.Header(packetId, dup, v5,
                wantsAlias ? 1 : alias, sendTopic, expiry);
        if (PublishEncoder.size(delivery, header) > client.limits().maximumPacketSize()) {
            tooLarge(packetId);
            return;
        }
        if (wantsAlias) {
            int assigned = client.aliases().assignOutbound(message.topic());
            header = new PublishEncoder.Header(packetId, dup, true, assigned, true, expiry);
        }
        ByteBuf packet = PublishEncoder.encode(c.ctx.alloc(), delivery, header);
        c.ctx.write(packet, c.ctx.voidPromise());
        c.broker.metrics().increment(BrokerCounter.MESSAGES_SENT);
    }

    /** Larger than the client accepts: discarded as if sent (MQTT 5 §3.1.2.11.4). */
    private void tooLarge(int packetId) {
        c.broker.metrics().increment(BrokerCounter.MESSAGES_DROPPED_TOO_LARGE);
        if (packetId != 0) {
            c.client().session().discard(packetId);
        }
    }

    void onPubAck(int packetId) {
        c.client().session().onPubAck(packetId);
    }

    void onPubRec(MqttMessage msg) {
        int packetId = Connection.packetId(msg);
        boolean failed = msg.variableHeader() instanceof MqttPubReplyMessageVariableHeader reply
                && (reply.reasonCode() & 0xFF) >= 0x80;
        switch (c.client().session().onPubRec(packetId, failed, c.outbox)) {
            case SEND_PUBREL -> writeOutbox();
            case UNKNOWN_PACKET_ID -> c.ctx.write(Acks.pubRel(packetId, c.isMqtt5() ? 0x92 : 0));
            case DONE -> { }
        }
    }

    void onPubComp(int packetId) {
        c.client().session().onPubComp(packetId);
    }
}
