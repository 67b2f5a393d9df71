package io.sluice.broker.connection;

import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttReasonCodes;
import io.sluice.broker.codec.InboundProperties;
import io.sluice.broker.codec.Utf8;
import io.sluice.broker.message.BridgePath;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.security.Authorizer;
import io.sluice.broker.session.DrainLag;
import io.sluice.broker.session.Session;
import io.sluice.broker.session.SessionJournal;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicName;
import io.sluice.net.RefusalLog;

/**
 * Inbound PUBLISH and PUBREL (MQTT 5 §3.3, §3.6): charges the client's publish rate, resolves
 * topic aliases, enforces the server's Receive Maximum, validates, authorises, copies the payload
 * once into a {@link Message} the broker owns, routes it and acknowledges. A client over its rate
 * is paused, never refused. QoS 2 uses "method B": the message is routed when
 * PUBLISH arrives and its packet id is remembered until PUBREL, so a resent PUBLISH is not
 * routed twice. Stateless.
 */
final class PublishHandler {
    private static final byte SUCCESS = 0x00;
    private static final byte NO_MATCHING_SUBSCRIBERS = 0x10;
    private static final byte NOT_AUTHORIZED = (byte) 0x87;
    private static final byte TOPIC_NAME_INVALID = (byte) 0x90;
    private static final byte PACKET_ID_NOT_FOUND = (byte) 0x92;
    private static final byte PAYLOAD_FORMAT_INVALID = (byte) 0x99;

    private PublishHandler() {
    }

    static void publish(Connection c, MqttPublishMessage msg) throws ProtocolViolation {
        ConnectedClient client = c.client();
        c.broker.metrics().increment(BrokerCounter.MESSAGES_RECEIVED);
        charge(c, client.throttle(), msg.content().readableBytes());
        MqttPublishVariableHeader header = msg.variableHeader();
        int qos = msg.fixedHeader().qosLevel().value();
        String topic = resolveTopic(client, header.topicName(), header.properties());
        checkReceiveMaximum(c, client, qos);
        Message message = admit(c, client, msg, topic, qos);
        if (message == null) {
            return;
        }
        DrainLag lag = DrainLag.lowered(); // only what this packet's routing finds counts
        route(c, client, message, qos, header.packetId());
        if (lag.raised()) {
            c.holdForDrainLag();
        }
    }

    private static void route(Connection c, ConnectedClient client, Message message, int qos, int packetId) {
        if (qos == 0) {
            c.broker.router().publish(message);
        } else if (c.broker.acknowledgesDurably()) {
            publishDurably(c, client, message, packetId);
        } else {
            publishAndAcknowledge(c, client, message, packetId);
        }
    }

    /** Charges the client's publish rate; over it, this packet is still handled but the ones after it wait. */
    private static void charge(Connection c, PublishThrottle throttle, int payloadBytes) {
        if (throttle == null) {
            return;
        }
        long pause = throttle.charge(payloadBytes, System.nanoTime());
        if (pause > 0) {
            c.pauseReads(pause);
        }
    }

    private static void checkReceiveMaximum(Connection c, ConnectedClient client, int qos) throws ProtocolViolation {
        if (qos == 0 || !client.isMqtt5()) {
            return;
        }
        int receiveMaximum = c.broker.settings().receiveMaximum();
        if (client.session().pendingInboundQos2() + c.inboundAcks.pendingQos1() >= receiveMaximum) {
            throw new ProtocolViolation(MqttReasonCodes.Disconnect.RECEIVE_MAXIMUM_EXCEEDED,
                    "more than " + receiveMaximum + " QoS 1/2 messages not yet acknowledged");
        }
    }

    /**
     * Validates and authorises a PUBLISH and copies its payload; returns the message the broker
     * now owns, or null if the PUBLISH was rejected (and answered, or the connection ended).
     */
    private static Message admit(Connection c, ConnectedClient client, MqttPublishMessage msg, String topic, int qos) {
        int packetId = msg.variableHeader().packetId();
        try {
            TopicName.validate(topic, c.broker.settings().maxTopicLevels());
        } catch (InvalidTopicException e) {
            reject(c, qos, packetId, TOPIC_NAME_INVALID, BrokerCounter.PUBLISH_DROPPED_INVALID, e.getMessage());
            return null;
        }
        byte[] payload = ByteBufUtil.getBytes(msg.content());
        MessageProperties properties = client.isMqtt5()
                ? InboundProperties.message(msg.variableHeader().properties()) : MessageProperties.NONE;
        if (properties.payloadFormat() == 1 && !Utf8.isValid(payload)) {
            reject(c, qos, packetId, PAYLOAD_FORMAT_INVALID, BrokerCounter.PUBLISH_DROPPED_INVALID,
                    "payload is not the UTF-8 its format indicator claims");
            return null;
        }
        if (!mayPublish(c, client, topic)) {
            denied(c, qos, packetId, topic);
            return null;
        }
        if (BridgePath.passedThrough(properties.userProperties(), c.broker.settings().nodeId())) {
            // Accepted and acknowledged (so the bridge does not resend it), never routed: it went round a loop.
            reject(c, qos, packetId, NO_MATCHING_SUBSCRIBERS, BrokerCounter.PUBLISH_DROPPED_LOOP,
                    "it was bridged through this node (" + c.broker.settings().nodeId() + ") before");
            return null;
        }
        return new Message(topic, payload, qos, msg.fixedHeader().isRetain(), properties, client.clientId(),
                System.currentTimeMillis());
    }

    /** QoS 1/2 without durability: route (a resent QoS 2 packet id not twice), then acknowledge at once. */
    private static void publishAndAcknowledge(Connection c, ConnectedClient client, Message message, int packetId) {
        if (message.qos() == 1 || client.session().receiveQos2(packetId)) {
            c.broker.router().publish(message);
        }
        c.ctx.write(message.qos() == 1 ? Acks.pubAck(packetId, SUCCESS) : Acks.pubRec(packetId, SUCCESS));
    }

    /**
     * With broker state persisted or a capture that promises durability, the PUBACK or PUBREC
     * goes out only once what routing changed is written: queued deliveries of persistent
     * sessions and the held QoS 2 packet id (the state journal), and captured copies (the taps
     * hold the acknowledgement themselves). A publisher that got its acknowledgement never loses
     * the message to a crash.
     */
    private static void publishDurably(Connection c, ConnectedClient client, Message message, int packetId) {
        InboundAcks.Pending ack = c.inboundAcks.add(packetId, message.qos());
        if (message.qos() == 1 || client.session().receiveQos2(packetId)) {
            c.broker.router().publish(message, ack);
        }
        SessionJournal journal = c.broker.sessions().journal();
        if (journal.enabled()) {
            ack.hold();
            journal.whenWritten(ack);
        }
        ack.release();
    }

    private static String resolveTopic(ConnectedClient client, String topic, MqttProperties props)
            throws ProtocolViolation {
        long alias = client.isMqtt5() ? InboundProperties.integer(props, MqttProperties.TOPIC_ALIAS, -1) : -1;
        String resolved = alias >= 0 ? client.aliases().resolveInbound(topic, (int) alias) : topic;
        if (resolved.isEmpty()) {
            throw ProtocolViolation.protocolError("PUBLISH with an empty topic name and no topic alias");
        }
        return resolved;
    }

    /** Clients may not publish into $SYS; beyond that the configured authoriser decides. */
    private static boolean mayPublish(Connection c, ConnectedClient client, String topic) {
        return !topic.startsWith("$SYS") && c.broker.authorizer().mayPublish(client.identity(), topic);
    }

    /** A PUBLISH the ACL refuses: dropped like any rejected one, or the end of the connection (deny_action). */
    private static void denied(Connection c, int qos, int packetId, String topic) {
        String reason = "not authorised to publish to '" + topic + "'";
        if (c.broker.authorizer().denyAction() == Authorizer.DenyAction.DISCONNECT) {
            c.broker.metrics().increment(BrokerCounter.PUBLISH_DENIED);
            c.broker.metrics().increment(BrokerCounter.DISCONNECTS_NOT_AUTHORIZED);
            c.disconnect(MqttReasonCodes.Disconnect.NOT_AUTHORIZED, reason);
            return;
        }
        reject(c, qos, packetId, NOT_AUTHORIZED, BrokerCounter.PUBLISH_DENIED, reason);
    }

    /**
     * A PUBLISH the broker will not route. MQTT 5 QoS 1/2 publishers learn why from the reason
     * code; QoS 0 and MQTT 3.x publishers are acknowledged plainly so that they do not resend.
     */
    private static void reject(Connection c, int qos, int packetId, byte reasonCode, BrokerCounter counter,
                               String reason) {
        c.broker.metrics().increment(counter);
        RefusalLog.log("dropped PUBLISH of client '{}' from {}: {}", c.clientId(), c.remoteAddress(), reason);
        int code = c.isMqtt5() ? reasonCode & 0xFF : SUCCESS;
        if (qos == 1) {
            c.ctx.write(Acks.pubAck(packetId, code));
        } else if (qos == 2) {
            c.ctx.write(Acks.pubRec(packetId, code));
        }
    }

    /**
     * PUBREL: the QoS 2 exchange of this packet id is over; answer PUBCOMP. Once it has the
     * PUBCOMP the client may use the packet id for its next message, so for a journaled session
     * the PUBCOMP waits until the release is written: a restart that still held the id would take
     * that next message for a resend of this one and never route it.
     */
    static void release(Connection c, int packetId) {
        Session session = c.client().session();
        boolean known = session.releaseQos2(packetId);
        MqttMessage pubComp = Acks.pubComp(packetId, known || !c.isMqtt5() ? SUCCESS : PACKET_ID_NOT_FOUND);
        if (known && session.journaled()) {
            c.broker.sessions().journal().whenWritten(() -> c.ctx.executor().execute(() -> c.ctx.writeAndFlush(pubComp)));
        } else {
            c.ctx.write(pubComp);
        }
    }
}
