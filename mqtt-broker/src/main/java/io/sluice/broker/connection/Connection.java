package io.sluice.broker.connection;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttIdentifierRejectedException;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodes;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttUnacceptableProtocolVersionException;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.sluice.broker.Broker;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.security.ClientIdentity;
import io.sluice.broker.session.Outbox;
import io.sluice.broker.session.Session;
import io.sluice.broker.session.SessionLink;
import io.sluice.broker.session.Will;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;

/**
 * One client's network connection: the last handler of the pipeline, after the MQTT decoder and
 * encoder. It owns the connection state and dispatches each packet to the handler for its
 * concern ({@link ConnectHandler}, {@link PublishHandler}, {@link SubscribeHandler},
 * {@link OutboundFlow}); protocol violations thrown by those end up in {@link #violation}.
 *
 * <p>Threading: everything here runs on the channel's event loop, except {@link #requestDrain}
 * and {@link #takenOver}, which other threads call and which only schedule work onto it.
 * Inbound packets are released here after dispatch; replies are written without flushing and
 * flushed once per read batch in {@link #channelReadComplete}.
 */
public final class Connection extends ChannelInboundHandlerAdapter implements SessionLink {
    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);
    /** Where netty-codec-mqtt keeps the protocol version it decoded from CONNECT. */
    private static final AttributeKey<MqttVersion> CODEC_VERSION = AttributeKey.valueOf("NETTY_CODEC_MQTT_VERSION");

    final Broker broker;
    final Outbox outbox = new Outbox();
    final OutboundFlow outbound;
    ChannelHandlerContext ctx;

    // Set by ConnectHandler once CONNECT is accepted.
    MqttVersion version = MqttVersion.MQTT_3_1_1;
    ClientIdentity identity;
    Session session;
    Will will;
    TopicAliases aliases;
    int clientReceiveMaximum = 65535;
    long clientMaximumPacketSize = Long.MAX_VALUE;
    boolean problemInformation = true;

    private boolean connected;
    private boolean closing;

    public Connection(Broker broker) {
        this.broker = broker;
        this.outbound = new OutboundFlow(this);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
    }

    Channel channel() {
        return ctx.channel();
    }

    boolean isMqtt5() {
        return version == MqttVersion.MQTT_5;
    }

    String clientId() {
        return identity == null ? "(before CONNECT)" : identity.clientId();
    }

    SocketAddress remoteAddress() {
        return ctx.channel().remoteAddress();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        try {
            if (!closing) {
                dispatch((MqttMessage) msg);
            }
        } catch (ProtocolViolation e) {
            violation(e);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void dispatch(MqttMessage msg) throws ProtocolViolation {
        if (msg.decoderResult().isFailure()) {
            decoderFailure(msg.decoderResult().cause());
            return;
        }
        MqttMessageType type = msg.fixedHeader().messageType();
        if (!connected) {
            if (type != MqttMessageType.CONNECT) {
                throw ProtocolViolation.protocolError("the first packet must be CONNECT, got " + type);
            }
            connected = ConnectHandler.connect(this, (MqttConnectMessage) msg);
            return;
        }
        switch (type) {
            case PUBLISH -> PublishHandler.publish(this, (MqttPublishMessage) msg);
            case PUBREL -> PublishHandler.release(this, packetId(msg));
            case PUBACK -> outbound.onPubAck(packetId(msg));
            case PUBREC -> outbound.onPubRec(msg);
            case PUBCOMP -> outbound.onPubComp(packetId(msg));
            case SUBSCRIBE -> SubscribeHandler.subscribe(this, (MqttSubscribeMessage) msg);
            case UNSUBSCRIBE -> SubscribeHandler.unsubscribe(this, (MqttUnsubscribeMessage) msg);
            case PINGREQ -> ctx.write(new MqttMessage(new MqttFixedHeader(
                    MqttMessageType.PINGRESP, false, MqttQoS.AT_MOST_ONCE, false, 0)));
            case DISCONNECT -> ConnectHandler.disconnect(this, msg);
            case CONNECT -> throw ProtocolViolation.protocolError("a second CONNECT on one connection");
            case AUTH -> throw ProtocolViolation.protocolError("AUTH without an authentication method in CONNECT");
            default -> throw ProtocolViolation.protocolError(type + " may not be sent by a client");
        }
    }

    static int packetId(MqttMessage msg) {
        return ((MqttMessageIdVariableHeader) msg.variableHeader()).messageId();
    }

    /** Maps a decoder failure to what MQTT says the server answers, then closes. */
    private void decoderFailure(Throwable cause) throws ProtocolViolation {
        boolean tooLarge = cause instanceof TooLongFrameException;
        if (connected) {
            throw tooLarge
                    ? new ProtocolViolation(MqttReasonCodes.Disconnect.PACKET_TOO_LARGE, cause.getMessage())
                    : ProtocolViolation.malformed(String.valueOf(cause.getMessage()));
        }
        MqttVersion codecVersion = ctx.channel().attr(CODEC_VERSION).get();
        boolean v5 = codecVersion == MqttVersion.MQTT_5;
        if (cause instanceof MqttUnacceptableProtocolVersionException) {
            refuse(v5 ? MqttConnectReturnCode.CONNECTION_REFUSED_UNSUPPORTED_PROTOCOL_VERSION
                    : MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION, cause.getMessage());
        } else if (cause instanceof MqttIdentifierRejectedException) {
            refuse(v5 ? MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID
                    : MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED, cause.getMessage());
        } else if (v5) {
            refuse(tooLarge ? MqttConnectReturnCode.CONNECTION_REFUSED_PACKET_TOO_LARGE
                    : MqttConnectReturnCode.CONNECTION_REFUSED_MALFORMED_PACKET, String.valueOf(cause.getMessage()));
        } else {
            broker.metrics().increment(BrokerCounter.CONNECTIONS_REFUSED);
            closeWithLog("malformed CONNECT: " + cause.getMessage());
        }
    }

    /** Refuses a CONNECT with {@code code} (valid for the connection's protocol version) and closes. */
    void refuse(MqttConnectReturnCode code, String reason) {
        broker.metrics().increment(BrokerCounter.CONNECTIONS_REFUSED);
        RefusalLog.log("refused client '{}' from {}: {} ({})", clientId(), remoteAddress(), reason, code);
        MqttConnAckMessage connAck = MqttMessageBuilders.connAck().returnCode(code).sessionPresent(false)
                .properties(MqttProperties.NO_PROPERTIES).build();
        closing = true;
        ctx.writeAndFlush(connAck).addListener(ChannelFutureListener.CLOSE);
    }

    /** Ends the connection for a protocol violation: DISCONNECT with the reason code in MQTT 5, a plain close before. */
    void violation(ProtocolViolation e) {
        broker.metrics().increment(BrokerCounter.DISCONNECTS_PROTOCOL_ERROR);
        disconnect(e.reasonCode(), e.getMessage());
    }

    /** Server-initiated disconnect (MQTT 5 §3.14): DISCONNECT with {@code code} for MQTT 5 clients, then close. */
    void disconnect(MqttReasonCodes.Disconnect code, String reason) {
        if (closing) {
            return;
        }
        closing = true;
        RefusalLog.log("disconnecting client '{}' from {}: {} ({})", clientId(), remoteAddress(), reason, code);
        if (connected && isMqtt5()) {
            MqttProperties properties = new MqttProperties();
            if (problemInformation) {
                properties.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, reason));
            }
            MqttMessage disconnect = MqttMessageBuilders.disconnect().reasonCode(code.byteValue())
                    .properties(properties).build();
            ctx.writeAndFlush(disconnect).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.flush();
            ctx.close();
        }
    }

    private void closeWithLog(String reason) {
        closing = true;
        RefusalLog.log("closing connection of client '{}' from {}: {}", clientId(), remoteAddress(), reason);
        ctx.close();
    }

    /** The client sent a normal DISCONNECT: close without publishing the will. */
    void closeNormally() {
        will = null;
        closeWithWill();
    }

    /** The client sent DISCONNECT asking for its will (MQTT 5 reason 0x04): close and keep it. */
    void closeWithWill() {
        closing = true;
        ctx.close();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) {
        context.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) {
        if (context.channel().isWritable() && session != null) {
            outbound.drain();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event instanceof IdleStateEvent) {
            if (!connected) {
                closeWithLog("no CONNECT within " + broker.settings().connectTimeoutMillis() + " ms");
                return;
            }
            broker.metrics().increment(BrokerCounter.DISCONNECTS_KEEPALIVE);
            disconnect(MqttReasonCodes.Disconnect.KEEP_ALIVE_TIMEOUT, "keepalive expired");
            return;
        }
        context.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        if (!closing) {
            LOG.info("connection of client '{}' from {} failed: {}", clientId(), remoteAddress(), cause.toString());
            LOG.debug("connection failure detail", cause);
        }
        closing = true;
        context.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        if (session != null) {
            broker.connectedClients().decrementAndGet();
            broker.sessions().detach(session, this, will);
            LOG.debug("client '{}' from {} disconnected", clientId(), remoteAddress());
        }
        context.fireChannelInactive();
    }

    // ---- SessionLink: called from other threads ----

    @Override
    public void requestDrain() {
        ctx.channel().eventLoop().execute(outbound.drainTask());
    }

    /** The server is stopping: DISCONNECT 0x8B to MQTT 5 clients, then close; callable from any thread. */
    public void serverShuttingDown() {
        ctx.channel().eventLoop().execute(() ->
                disconnect(MqttReasonCodes.Disconnect.SERVER_SHUTTING_DOWN, "server shutting down"));
    }

    @Override
    public void takenOver() {
        ctx.channel().eventLoop().execute(() ->
                disconnect(MqttReasonCodes.Disconnect.SESSION_TAKEN_OVER, "session taken over by a new connection"));
    }
}
