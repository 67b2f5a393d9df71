package io.sluice.bridges.mqtt;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnAckVariableHeader;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubscriptionOption;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.BridgePath;
import io.sluice.bridges.LocalPublisher;
import io.sluice.bridges.MessageProperties;
import io.sluice.bridges.Remote;
import io.sluice.bridges.UserProperty;
import io.sluice.bridges.backlog.BacklogRecord;
import io.sluice.logging.RateLimitedLog;
import io.sluice.storage.Receipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection of an {@link MqttRemote}: CONNECT and CONNACK, the QoS 1/2 flows of what the
 * bridge sends, SUBSCRIBE, messages from the remote's subscriptions, keep-alive and DISCONNECT.
 * Every outcome goes to the connection's {@link Remote.Events}; the first failure (a refused
 * CONNACK, a DISCONNECT from the remote, a malformed packet, a silent remote, a closed socket) ends
 * the connection and is reported once.
 *
 * <p>Event loop only, except {@link #close} and {@link #isWritable}.
 */
final class MqttConnection extends SimpleChannelInboundHandler<MqttMessage> {
    private static final Logger LOG = LoggerFactory.getLogger(MqttConnection.class);
    private static final Runnable NOTHING = () -> { };

    private final MqttRemote remote;
    private final MqttBridgeSettings settings;
    private final Remote.Events events;
    private final boolean bridgeBit;
    private final boolean mqtt5;
    private final RateLimitedLog refusedLocally;

    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> connAckTimer;
    private volatile boolean up;
    private volatile boolean ended;
    private int maximumPacketSize = PublishPacket.PROTOCOL_MAXIMUM;
    /** The remote's Receive Maximum, capped by max_send_queue_len: QoS 1/2 messages in flight at most. */
    private int receiveWindow = 1;
    /** QoS 1/2 messages sent and not yet completed (PUBACK, PUBCOMP, or refused). */
    private int awaitingAck;
    /** Messages the bridge handed over beyond the window (its lookahead), sent as the window frees up. */
    private final ArrayDeque<Remote.Outgoing> queued = new ArrayDeque<>();
    private OutboundAliases aliases = new OutboundAliases(0);
    private String[] inboundAliases;
    private boolean reading;
    private boolean flushAfterRead;

    MqttConnection(MqttRemote remote, Remote.Events events, boolean bridgeBit) {
        this.remote = remote;
        this.settings = remote.settings();
        this.events = events;
        this.bridgeBit = bridgeBit;
        this.mqtt5 = settings.isMqtt5();
        this.refusedLocally = RateLimitedLog.onePer(LOG, "bridge " + settings.name(), Duration.ofSeconds(10));
    }

    boolean usesBridgeBit() {
        return bridgeBit;
    }

    /** Whether the connection is up and its socket takes more writes now. Any thread. */
    boolean isWritable() {
        ChannelHandlerContext context = ctx;
        return up && !ended && context != null && context.channel().isWritable();
    }

    // ------------------------------------------------------------------ connecting

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ended) {
            ctx.close();
            return;
        }
        ctx.writeAndFlush(connectMessage());
        connAckTimer = ctx.executor().schedule(() -> fail("no CONNACK within " + MqttRemote.CONNECT_TIMEOUT_MILLIS
                + " ms", null), MqttRemote.CONNECT_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    private MqttMessage connectMessage() {
        MqttVersion version = switch (settings.protoVer()) {
            case 3 -> MqttVersion.MQTT_3_1;
            case 4 -> MqttVersion.MQTT_3_1_1;
            default -> MqttVersion.MQTT_5;
        };
        MqttMessageBuilders.ConnectBuilder connect = MqttMessageBuilders.connect()
                .protocolVersion(version)
                .clientId(settings.clientId())
                .cleanSession(settings.cleanStart())
                .keepAlive(settings.keepaliveSeconds());
        if (settings.username() != null) {
            connect.hasUser(true).username(settings.username());
        }
        if (settings.password() != null) {
            connect.hasPassword(true).password(settings.password().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        MqttBridgeSettings.Will will = settings.will();
        if (will != null) {
            connect.willFlag(true).willTopic(will.topic()).willMessage(will.payload())
                    .willQoS(MqttQoS.valueOf(will.qos())).willRetain(will.retain());
            if (mqtt5) {
                connect.willProperties(willProperties(will));
            }
        }
        if (mqtt5) {
            connect.properties(connectProperties(settings.connect()));
        }
        return connect.build();
    }

    private static MqttProperties connectProperties(MqttBridgeSettings.ConnectProperties p) {
        MqttProperties properties = new MqttProperties();
        if (p.sessionExpirySeconds() > 0) {
            properties.add(integer(MqttProperties.SESSION_EXPIRY_INTERVAL, (int) p.sessionExpirySeconds()));
        }
        if (p.receiveMaximum() != 65535) {
            properties.add(integer(MqttProperties.RECEIVE_MAXIMUM, p.receiveMaximum()));
        }
        if (p.maximumPacketSize() > 0) {
            properties.add(integer(MqttProperties.MAXIMUM_PACKET_SIZE, p.maximumPacketSize()));
        }
        if (p.topicAliasMaximum() > 0) {
            properties.add(integer(MqttProperties.TOPIC_ALIAS_MAXIMUM, p.topicAliasMaximum()));
        }
        if (p.requestProblemInfo() != 1) {
            properties.add(integer(MqttProperties.REQUEST_PROBLEM_INFORMATION, p.requestProblemInfo()));
        }
        if (p.requestResponseInfo() != 0) {
            properties.add(integer(MqttProperties.REQUEST_RESPONSE_INFORMATION, p.requestResponseInfo()));
        }
        addUserProperties(properties, p.userProperties());
        return properties;
    }

    private static MqttProperties willProperties(MqttBridgeSettings.Will will) {
        MqttProperties properties = new MqttProperties();
        MessageProperties p = will.properties();
        if (will.delaySeconds() > 0) {
            properties.add(integer(MqttProperties.WILL_DELAY_INTERVAL, (int) will.delaySeconds()));
        }
        if (p.payloadFormat() >= 0) {
            properties.add(integer(MqttProperties.PAYLOAD_FORMAT_INDICATOR, p.payloadFormat()));
        }
        if (p.expiryInterval() > 0) {
            properties.add(integer(MqttProperties.PUBLICATION_EXPIRY_INTERVAL, (int) p.expiryInterval()));
        }
        if (p.contentType() != null) {
            properties.add(new MqttProperties.StringProperty(MqttProperties.CONTENT_TYPE, p.contentType()));
        }
        if (p.responseTopic() != null) {
            properties.add(new MqttProperties.StringProperty(MqttProperties.RESPONSE_TOPIC, p.responseTopic()));
        }
        if (p.correlationData() != null) {
            properties.add(new MqttProperties.BinaryProperty(MqttProperties.CORRELATION_DATA, p.correlationData()));
        }
        addUserProperties(properties, p.userProperties());
        return properties;
    }

    private static MqttProperties.IntegerProperty integer(int id, int value) {
        return new MqttProperties.IntegerProperty(id, value);
    }

    private static void addUserProperties(MqttProperties properties, List<UserProperty> users) {
        if (users.isEmpty()) {
            return;
        }
        MqttProperties.UserProperties all = new MqttProperties.UserProperties();
        for (UserProperty user : users) {
            all.add(user.name(), user.value());
        }
        properties.add(all);
    }

    private void connAck(MqttConnAckMessage msg) {
        if (connAckTimer != null) {
            connAckTimer.cancel(false);
        }
        MqttConnAckVariableHeader header = msg.variableHeader();
        MqttConnectReturnCode code = header.connectReturnCode();
        if (code != MqttConnectReturnCode.CONNECTION_ACCEPTED) {
            if (bridgeBit && code == MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION) {
                remote.bridgeBitRefused();
            }
            fail("the remote refused the connection: " + code + reasonString(header.properties()), null);
            return;
        }
        MqttProperties props = header.properties();
        int receiveMaximum = mqtt5 ? (int) property(props, MqttProperties.RECEIVE_MAXIMUM, 65535)
                : MqttRemote.MQTT3_WINDOW;
        int window = settings.maxSendQueueLen() > 0 ? Math.min(receiveMaximum, settings.maxSendQueueLen())
                : receiveMaximum;
        receiveWindow = window;
        maximumPacketSize = (int) Math.min(PublishPacket.PROTOCOL_MAXIMUM,
                property(props, MqttProperties.MAXIMUM_PACKET_SIZE, PublishPacket.PROTOCOL_MAXIMUM));
        int topicAliasMaximum = mqtt5 ? (int) property(props, MqttProperties.TOPIC_ALIAS_MAXIMUM, 0) : 0;
        aliases = new OutboundAliases(topicAliasMaximum);
        if (mqtt5 && settings.connect().topicAliasMaximum() > 0) {
            inboundAliases = new String[settings.connect().topicAliasMaximum() + 1];
        }
        int keepalive = (int) property(props, MqttProperties.SERVER_KEEP_ALIVE, settings.keepaliveSeconds());
        if (keepalive > 0) {
            ctx.pipeline().addBefore(ctx.name(), "keepalive", new IdleStateHandler(keepalive * 1500L, keepalive * 1000L,
                    0, TimeUnit.MILLISECONDS));
        }
        boolean resumed = resumeSession(header.isSessionPresent());
        up = true;
        subscribe();
        ctx.flush();
        String assigned = mqtt5 ? string(props, MqttProperties.ASSIGNED_CLIENT_IDENTIFIER) : null;
        events.connected(window, "MQTT " + (settings.protoVer() == 3 ? "3.1" : settings.protoVer() == 4 ? "3.1.1" : "5")
                + (bridgeBit ? " with the bridge bit" : "") + ", client id " + (assigned != null ? assigned
                : settings.clientId()) + (resumed ? ", session resumed" : ", new session")
                + (mqtt5 ? ", receive maximum " + receiveMaximum + ", maximum packet size " + maximumPacketSize
                + ", topic alias maximum " + topicAliasMaximum : "") + ", keepalive " + keepalive + " s");
    }

    /**
     * Continues the previous session's QoS flows if the remote kept it (MQTT 3.1 does not say, so a
     * 3.1 bridge without clean start assumes it did: resending with the same identifiers is harmless
     * either way); otherwise forgets them.
     */
    private boolean resumeSession(boolean sessionPresent) {
        Inflight inflight = remote.inflight();
        boolean resumed = !settings.cleanStart() && (sessionPresent || settings.protoVer() == 3);
        if (!resumed) {
            inflight.clear();
            Arrays.fill(remote.receivedQos2(), false);
            return false;
        }
        for (int id : inflight.resume()) {
            ctx.write(pubReply(MqttMessageType.PUBREL, id));
            awaitingAck++; // a QoS 2 message awaiting PUBCOMP counts against the Receive Maximum
        }
        return true;
    }

    private void subscribe() {
        List<SubscriptionRule> rules = remote.subscriptions();
        if (rules.isEmpty()) {
            return;
        }
        int id = remote.inflight().allocateForSubscribe();
        if (id == 0) {
            fail("no packet identifier is free for SUBSCRIBE", null);
            return;
        }
        MqttMessageBuilders.SubscribeBuilder subscribe = MqttMessageBuilders.subscribe().messageId(id);
        for (SubscriptionRule rule : rules) {
            subscribe.addSubscription(rule.remoteTopic(), new MqttSubscriptionOption(MqttQoS.valueOf(rule.qos()),
                    rule.noLocal(), rule.retainAsPublished(),
                    MqttSubscriptionOption.RetainedHandlingPolicy.valueOf(rule.retainHandling())));
        }
        if (mqtt5) {
            MqttProperties properties = new MqttProperties();
            if (settings.subscriptionIdentifier() > 0) {
                properties.add(integer(MqttProperties.SUBSCRIPTION_IDENTIFIER, settings.subscriptionIdentifier()));
            }
            addUserProperties(properties, settings.subscriptionUserProperties());
            subscribe.properties(properties);
        }
        ctx.write(subscribe.build());
    }

    private void subAck(MqttSubAckMessage msg) {
        int id = msg.variableHeader().messageId();
        if (remote.inflight().state(id) == Inflight.AWAIT_SUBACK) {
            remote.inflight().free(id);
            sendQueued(); // a message whose identifier the SUBSCRIBE held may go now
        }
        List<Integer> codes = msg.payload().reasonCodes();
        List<SubscriptionRule> rules = remote.subscriptions();
        List<String> granted = new ArrayList<>();
        for (int i = 0; i < codes.size() && i < rules.size(); i++) {
            int code = codes.get(i);
            if (code >= 0x80) {
                remote.counters().increment(BridgeCounter.SUBSCRIPTIONS_REFUSED);
                LOG.warn("bridge {}: {} refused the subscription to '{}' (reason code 0x{})", settings.name(),
                        remote.address(), rules.get(i).remoteTopic(), Integer.toHexString(code));
            } else {
                granted.add(rules.get(i).remoteTopic() + " (QoS " + code + ")");
            }
        }
        if (!granted.isEmpty()) {
            LOG.info("bridge {}: subscribed on {} to {}", settings.name(), remote.address(), granted);
        }
    }

    // ------------------------------------------------------------------ what the bridge sends

    /**
     * Takes stored messages from the bridge and sends as many as the remote's Receive Maximum allows;
     * the rest wait here and go out as acknowledgements free the window. Messages of a connection
     * that is not up wait for the bridge to resend them on the next one.
     */
    void publish(List<Remote.Outgoing> batch) {
        if (!up || ended) {
            return;
        }
        queued.addAll(batch);
        sendQueued();
    }

    private void sendQueued() {
        long now = System.currentTimeMillis();
        Inflight ids = remote.inflight();
        boolean wrote = false;
        while (!queued.isEmpty() && up && !ended) {
            Remote.Outgoing outgoing = queued.peekFirst();
            BridgeMessage message = outgoing.record().message();
            int id = 0;
            if (message.qos() > 0) {
                if (awaitingAck >= receiveWindow) {
                    break;
                }
                int held = Inflight.idFor(outgoing.offset());
                if (ids.state(held) == Inflight.AWAIT_PUBCOMP && ids.offset(held) == outgoing.offset()) {
                    queued.pollFirst(); // the remote has it: its PUBREL went out again at CONNACK, PUBCOMP will acknowledge
                    continue;
                }
                id = ids.claim(outgoing.offset(), message.qos() == 1 ? Inflight.AWAIT_PUBACK : Inflight.AWAIT_PUBREC);
                if (id == 0) {
                    break; // an older message or a SUBSCRIBE holds its identifier: wait until it completes
                }
            }
            queued.pollFirst();
            Sent sent = write(outgoing.offset(), outgoing.record(), id, now);
            wrote = true;
            if (sent == Sent.WRITTEN) {
                if (message.qos() > 0) {
                    awaitingAck++;
                } else {
                    events.acknowledged(outgoing.offset());
                }
            }
        }
        if (wrote) {
            flushSoon();
        }
    }

    /** Flushes now, or at the end of the read in progress. */
    private void flushSoon() {
        if (reading) {
            flushAfterRead = true;
        } else {
            ctx.flush();
        }
    }

    /** A QoS 1/2 message left the window (completed or refused): send what waits. */
    private void completed() {
        awaitingAck--;
        sendQueued();
    }

    /** Sends a QoS 0 message that was not stored. */
    void publishUnstored(BacklogRecord record) {
        if (!up || ended) {
            remote.counters().increment(BridgeCounter.QOS0_DROPPED_OFFLINE);
            return;
        }
        if (write(-1, record, 0, System.currentTimeMillis()) == Sent.WRITTEN) {
            flushSoon();
        }
    }

    /** What became of a message {@link #write} was given. */
    private enum Sent { WRITTEN, REFUSED }

    /**
     * Writes one PUBLISH with packet identifier {@code id} (claimed for a QoS 1/2 message, 0 for QoS 0),
     * with DUP if an earlier connection of the session sent it. A message above the remote's Maximum
     * Packet Size is refused and its identifier freed.
     */
    private Sent write(long offset, BacklogRecord record, int id, long now) {
        BridgeMessage message = record.message();
        String topic = record.target();
        int alias = mqtt5 ? aliases.aliasFor(topic) : 0;
        String wireTopic = alias > 0 ? "" : topic;
        int wireAlias = Math.abs(alias);
        String pathNode = mqtt5 ? remote.nodeId() : null;
        long size = PublishPacket.size(wireTopic, message, mqtt5, wireAlias, pathNode);
        if (size > maximumPacketSize) {
            if (alias < 0) {
                aliases.forget(topic);
            }
            if (id != 0) {
                remote.inflight().free(id);
            }
            String reason = "a " + size + "-byte PUBLISH to '" + topic + "' exceeds the remote's maximum packet size of "
                    + maximumPacketSize + " bytes";
            if (offset >= 0) {
                events.refused(offset, BridgeCounter.TOO_LARGE, reason);
            } else {
                remote.counters().increment(BridgeCounter.TOO_LARGE);
                refusedLocally.warn(reason);
            }
            return Sent.REFUSED;
        }
        boolean dup = id != 0 && remote.inflight().isResent(id);
        ctx.write(PublishPacket.build(wireTopic, message, mqtt5, wireAlias, id, dup, pathNode, now));
        return Sent.WRITTEN;
    }

    private void pubAck(int id, int reason) {
        Inflight inflight = remote.inflight();
        if (inflight.state(id) != Inflight.AWAIT_PUBACK) {
            return; // late, or for a session that is gone
        }
        long offset = inflight.offset(id);
        inflight.free(id);
        settle(offset, reason, "PUBACK");
        completed();
    }

    private void pubRec(int id, int reason) {
        Inflight inflight = remote.inflight();
        byte state = inflight.state(id);
        if (state == Inflight.AWAIT_PUBCOMP) {
            writeAfterRead(pubReply(MqttMessageType.PUBREL, id));
            return;
        }
        if (state != Inflight.AWAIT_PUBREC) {
            return;
        }
        if (reason >= 0x80) {
            long offset = inflight.offset(id);
            inflight.free(id);
            settle(offset, reason, "PUBREC");
            completed();
            return;
        }
        inflight.set(id, Inflight.AWAIT_PUBCOMP);
        writeAfterRead(pubReply(MqttMessageType.PUBREL, id));
    }

    private void pubComp(int id) {
        Inflight inflight = remote.inflight();
        if (inflight.state(id) != Inflight.AWAIT_PUBCOMP) {
            return;
        }
        long offset = inflight.offset(id);
        inflight.free(id);
        events.acknowledged(offset);
        completed();
    }

    private void settle(long offset, int reason, String packet) {
        if (reason >= 0x80) {
            events.refused(offset, BridgeCounter.REFUSED_BY_REMOTE, packet + " with reason code 0x"
                    + Integer.toHexString(reason));
        } else {
            events.acknowledged(offset);
        }
    }

    // ------------------------------------------------------------------ what the remote sends

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, MqttMessage msg) {
        if (msg.decoderResult().isFailure()) {
            fail("malformed packet from the remote: " + msg.decoderResult().cause().getMessage(),
                    msg.decoderResult().cause());
            return;
        }
        reading = true;
        MqttFixedHeader fixed = msg.fixedHeader();
        switch (fixed.messageType()) {
            case CONNACK -> connAck((MqttConnAckMessage) msg);
            case PUBLISH -> inbound((MqttPublishMessage) msg);
            case PUBACK -> pubAck(messageId(msg), reasonCode(msg));
            case PUBREC -> pubRec(messageId(msg), reasonCode(msg));
            case PUBREL -> pubRel(messageId(msg));
            case PUBCOMP -> pubComp(messageId(msg));
            case SUBACK -> subAck((MqttSubAckMessage) msg);
            case PINGRESP, UNSUBACK, AUTH -> {
                // keep-alive answered; nothing else to do
            }
            case DISCONNECT -> remoteDisconnect(msg);
            default -> fail("unexpected " + fixed.messageType() + " from the remote", null);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        reading = false;
        if (flushAfterRead) {
            flushAfterRead = false;
            ctx.flush();
        }
    }

    /** Writes now; flushes at the end of the read if in one, else at once. */
    private void writeAfterRead(Object msg) {
        if (reading) {
            ctx.write(msg);
            flushAfterRead = true;
        } else {
            ctx.writeAndFlush(msg);
        }
    }

    private void inbound(MqttPublishMessage msg) {
        if (!up) {
            fail("PUBLISH before CONNACK", null);
            return;
        }
        int qos = msg.fixedHeader().qosLevel().value();
        int id = msg.variableHeader().packetId();
        String topic = inboundTopic(msg);
        if (topic == null) {
            return;
        }
        if (qos == 2 && remote.receivedQos2()[id]) {
            writeAfterRead(pubReply(MqttMessageType.PUBREC, id));
            return;
        }
        MessageProperties properties = mqtt5 ? messageProperties(msg.variableHeader().properties())
                : MessageProperties.NONE;
        if (BridgePath.passedThrough(properties.userProperties(), remote.nodeId())) {
            remote.counters().increment(BridgeCounter.RECEIVED_LOOPED);
            refusedLocally.warn("'" + topic + "' from the remote has passed through this node ("
                    + remote.nodeId() + ") before: dropped to end a loop; "
                    + remote.counters().get(BridgeCounter.RECEIVED_LOOPED) + " so far");
            if (qos > 0) {
                sendInboundAck(id, qos);
            }
            return;
        }
        byte[] payload = ByteBufUtil.getBytes(msg.content());
        BridgeMessage message = new BridgeMessage(remote.localTopic(topic), payload, qos,
                remote.localRetain(topic, msg.fixedHeader().isRetain()), properties, remote.identity().clientId(),
                System.currentTimeMillis());
        remote.counters().increment(BridgeCounter.RECEIVED);
        Runnable done = qos == 0 ? NOTHING : new InboundReceipt(id, qos);
        LocalPublisher.Outcome outcome = remote.publisher().publish(remote.identity(), message, done);
        if (outcome == LocalPublisher.Outcome.DENIED) {
            remote.counters().increment(BridgeCounter.RECEIVED_DENIED);
            refusedLocally.warn("the local ACL does not let the bridge publish to '" + message.topic() + "'; "
                    + remote.counters().get(BridgeCounter.RECEIVED_DENIED) + " denied so far");
        } else if (outcome == LocalPublisher.Outcome.INVALID_TOPIC) {
            remote.counters().increment(BridgeCounter.RECEIVED_INVALID);
            refusedLocally.warn("'" + message.topic() + "' (from '" + topic + "' on the remote) is not a valid local"
                    + " topic; " + remote.counters().get(BridgeCounter.RECEIVED_INVALID) + " dropped so far");
        }
    }

    /** The topic of an inbound PUBLISH, resolving a topic alias; null after a protocol error. */
    private String inboundTopic(MqttPublishMessage msg) {
        String topic = msg.variableHeader().topicName();
        if (!mqtt5) {
            return topic;
        }
        long alias = property(msg.variableHeader().properties(), MqttProperties.TOPIC_ALIAS, 0);
        if (alias == 0) {
            return topic;
        }
        if (inboundAliases == null || alias >= inboundAliases.length) {
            fail("the remote used topic alias " + alias + " beyond the maximum of "
                    + settings.connect().topicAliasMaximum(), null);
            return null;
        }
        if (!topic.isEmpty()) {
            inboundAliases[(int) alias] = topic;
            return topic;
        }
        String known = inboundAliases[(int) alias];
        if (known == null) {
            fail("the remote used topic alias " + alias + " before defining it", null);
        }
        return known;
    }

    /**
     * What the local side answers for one QoS 1/2 message from the remote: it is stored (and the
     * remote gets its PUBACK or PUBREC), or it could not be stored (a full disk, an offline
     * write-ahead log, a full stream or backlog queue) and stays unacknowledged.
     */
    private final class InboundReceipt implements Receipt {
        private final int id;
        private final int qos;

        InboundReceipt(int id, int qos) {
            this.id = id;
            this.qos = qos;
        }

        @Override
        public void run() {
            onEventLoop(() -> sendInboundAck(id, qos));
        }

        @Override
        public void refused() {
            onEventLoop(() -> notStoredLocally(id, qos));
        }
    }

    private void onEventLoop(Runnable task) {
        if (ctx.executor().inEventLoop()) {
            task.run();
        } else {
            ctx.executor().execute(task);
        }
    }

    /**
     * A message from the remote that the local side could not store is not acknowledged. A
     * remote sends an unacknowledged message again only on a new connection (MQTT 5 §4.4), so the
     * bridge ends this one and reconnects after its backoff; a remote that kept the session
     * ({@code clean_start = false}) then sends it again, with DUP. Its QoS 2 packet id is not
     * marked received, so the message sent again is published again.
     */
    private void notStoredLocally(int id, int qos) {
        remote.counters().increment(BridgeCounter.RECEIVED_NOT_STORED);
        refusedLocally.warn("a QoS " + qos + " message from the remote (packet id " + id + ") could not be stored "
                + "locally (a capture, stream, bridge backlog or the broker state refused it): not acknowledged; "
                + remote.counters().get(BridgeCounter.RECEIVED_NOT_STORED) + " so far");
        fail("a message from the remote could not be stored locally; reconnecting so that the remote sends it again",
                null);
    }

    private void sendInboundAck(int id, int qos) {
        if (qos == 2) {
            // stored: even if this connection has ended, the remote's resend of it must not be published again
            remote.receivedQos2()[id] = true;
        }
        if (ended) {
            return;
        }
        writeAfterRead(pubReply(qos == 1 ? MqttMessageType.PUBACK : MqttMessageType.PUBREC, id));
    }

    private void pubRel(int id) {
        remote.receivedQos2()[id] = false;
        writeAfterRead(pubReply(MqttMessageType.PUBCOMP, id));
    }

    private void remoteDisconnect(MqttMessage msg) {
        String why = "the remote sent DISCONNECT";
        if (msg.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader header) {
            why += " with reason code 0x" + Integer.toHexString(header.reasonCode() & 0xFF)
                    + reasonString(header.properties());
        }
        fail(why, null);
    }

    // ------------------------------------------------------------------ keep-alive and the end

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent idle) {
            if (idle.state() == IdleState.WRITER_IDLE) {
                ctx.writeAndFlush(new MqttMessage(new MqttFixedHeader(MqttMessageType.PINGREQ, false,
                        MqttQoS.AT_MOST_ONCE, false, 0)));
            } else if (idle.state() == IdleState.READER_IDLE) {
                fail("nothing from the remote for 1.5 times the keepalive: it is gone", null);
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail("the connection was closed", null);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(String.valueOf(cause.getMessage() != null ? cause.getMessage() : cause), cause);
    }

    /** Reports the end once and closes. */
    private void fail(String reason, Throwable cause) {
        boolean first = !ended;
        ended = true;
        up = false;
        if (connAckTimer != null) {
            connAckTimer.cancel(false);
        }
        if (first) {
            events.failed(reason, cause);
        }
        if (ctx != null) {
            ctx.close();
        }
    }

    /** Ends the connection from any thread: DISCONNECT if it is up, then close. No event follows. */
    void close(String reason) {
        boolean wasUp = up;
        ended = true;
        up = false;
        ChannelHandlerContext context = ctx;
        if (context == null) {
            return;
        }
        context.executor().execute(() -> {
            if (wasUp && context.channel().isActive()) {
                MqttMessage disconnect = mqtt5 ? MqttMessageBuilders.disconnect().reasonCode((byte) 0).build()
                        : new MqttMessage(new MqttFixedHeader(MqttMessageType.DISCONNECT, false, MqttQoS.AT_MOST_ONCE,
                        false, 0));
                context.writeAndFlush(disconnect);
            }
            context.close();
            LOG.debug("bridge {}: closed the connection to {}: {}", settings.name(), remote.address(), reason);
        });
    }

    // ------------------------------------------------------------------ packet helpers

    private static MqttMessage pubReply(MqttMessageType type, int id) {
        MqttQoS qos = type == MqttMessageType.PUBREL ? MqttQoS.AT_LEAST_ONCE : MqttQoS.AT_MOST_ONCE;
        return new MqttMessage(new MqttFixedHeader(type, false, qos, false, 0), MqttMessageIdVariableHeader.from(id));
    }

    private static int messageId(MqttMessage msg) {
        return ((MqttMessageIdVariableHeader) msg.variableHeader()).messageId();
    }

    private static int reasonCode(MqttMessage msg) {
        return msg.variableHeader() instanceof MqttPubReplyMessageVariableHeader reply ? reply.reasonCode() & 0xFF : 0;
    }

    private static long property(MqttProperties properties, int id, long absent) {
        MqttProperties.MqttProperty<?> property = properties.getProperty(id);
        return property == null ? absent : ((Integer) property.value()) & 0xFFFFFFFFL;
    }

    private static String string(MqttProperties properties, int id) {
        MqttProperties.MqttProperty<?> property = properties.getProperty(id);
        return property == null ? null : (String) property.value();
    }

    private static String reasonString(MqttProperties properties) {
        String reason = string(properties, MqttProperties.REASON_STRING);
        return reason == null ? "" : " (" + reason + ")";
    }

    @SuppressWarnings("rawtypes") // netty declares getProperties with a raw element type
    private static MessageProperties messageProperties(MqttProperties properties) {
        if (properties.isEmpty()) {
            return MessageProperties.NONE;
        }
        List<UserProperty> users = new ArrayList<>();
        for (MqttProperties.MqttProperty property : properties.getProperties(MqttProperties.USER_PROPERTY)) {
            if (property instanceof MqttProperties.UserProperty user) {
                users.add(new UserProperty(user.value().key, user.value().value));
            } else if (property instanceof MqttProperties.UserProperties all) {
                all.value().forEach(pair -> users.add(new UserProperty(pair.key, pair.value)));
            }
        }
        MqttProperties.MqttProperty<?> correlation = properties.getProperty(MqttProperties.CORRELATION_DATA);
        MessageProperties result = new MessageProperties(
                (int) property(properties, MqttProperties.PAYLOAD_FORMAT_INDICATOR, -1),
                property(properties, MqttProperties.PUBLICATION_EXPIRY_INTERVAL, -1),
                string(properties, MqttProperties.CONTENT_TYPE),
                string(properties, MqttProperties.RESPONSE_TOPIC),
                correlation == null ? null : (byte[]) correlation.value(),
                users);
        return result.isEmpty() ? MessageProperties.NONE : result;
    }
}
