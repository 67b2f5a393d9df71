package io.sluice.broker.connection;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttIdentifierRejectedException;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttReasonCodes;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttUnacceptableProtocolVersionException;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.sluice.broker.Broker;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.session.ClientInfo;
import io.sluice.broker.session.Outbox;
import io.sluice.broker.session.SessionLink;
import io.sluice.net.auth.AuthExchange;
import io.sluice.net.tls.ClientCertificate;
import io.sluice.net.RefusalLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * One client's network connection: the last handler of the pipeline, after the MQTT decoder and
 * encoder. Its state goes through two objects: the {@link ConnectRequest} CONNECT made, while the
 * client authenticates, then the {@link ConnectedClient} made once at CONNACK and kept, unchanged,
 * until the connection ends. It dispatches each packet to the handler for its
 * concern ({@link ConnectHandler}, {@link AuthHandler}, {@link PublishHandler},
 * {@link SubscribeHandler}, {@link OutboundFlow}); protocol violations thrown by those end up in
 * {@link #violation}. A client over its publish rate has its reads paused here, and the packets
 * already read wait, in order, until it is within its rate again.
 *
 * <p>Threading: everything here runs on the channel's event loop, except {@link #requestDrain}
 * and {@link #takenOver}, which other threads call and which only schedule work onto it.
 * Inbound packets are released here after dispatch; replies are written without flushing and
 * flushed once per read batch in {@link #channelReadComplete}. Subscribers on the same event
 * loop that a packet fed are drained right after it ({@link PendingDrains}).
 */
public final class Connection extends ChannelInboundHandlerAdapter implements SessionLink {
    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);
    /** Long enough for a lagging subscriber's loop to be scheduled and drain, short against any keepalive. */
    private static final long DRAIN_LAG_HOLD_NANOS = 1_000_000;
    /**
     * How long a full write buffer still counts as draining: the kernel takes a new connection's
     * data in small steps while its send buffer grows with the acknowledgements, and this loop
     * writes again only once it runs. A subscriber that reads is writable again within it; one that
     * stopped reading is not, and from then on its queue drops instead of holding publishers.
     */
    private static final long DRAIN_GRACE_NANOS = 20_000_000;
    /** Where netty-codec-mqtt keeps the protocol version it decoded from CONNECT. */
    private static final AttributeKey<MqttVersion> CODEC_VERSION = AttributeKey.valueOf("NETTY_CODEC_MQTT_VERSION");

    final Broker broker;
    /** {@code peer_cert_as_username}: the client certificate's CN is the user name and authenticates the client. */
    final boolean peerCertAsUsername;
    final Outbox outbox = new Outbox();
    final OutboundFlow outbound;
    final InboundAcks inboundAcks = new InboundAcks(this);
    final ReadDeadline readDeadline = new ReadDeadline(this);
    ChannelHandlerContext ctx;

    /** What CONNECT asked for, from its arrival until CONNACK (an enhanced authentication takes several packets). */
    ConnectRequest request;
    /** An enhanced authentication in progress (before CONNACK, or a re-authentication), else null. */
    AuthExchange authExchange;
    /** The client as CONNACK accepted it; null before, then set once ({@link #accepted}). */
    private ConnectedClient client;
    /** The same for status readers on other threads; null before CONNACK. */
    private volatile ClientInfo info;

    private boolean closing;
    /** The client ended with a normal DISCONNECT, which discards its will (MQTT 5 §3.1.2.5). */
    private boolean willDiscarded;
    private boolean readsPaused;
    /** Packets already read when reads were paused, handled in order once the client is within its rate. */
    private ArrayDeque<Object> deferred;
    /** When the channel last became unwritable ({@link System#nanoTime}), 0 while writable; read on other loops. */
    private volatile long unwritableSince;

    public Connection(Broker broker, boolean peerCertAsUsername) {
        this.broker = broker;
        this.peerCertAsUsername = peerCertAsUsername;
        this.outbound = new OutboundFlow(this);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
        if (context.channel().isActive()) { // added to a live channel: channelActive will not come
            readDeadline.start(context, broker.settings().connectTimeoutMillis());
        }
    }

    /** The client as CONNACK accepted it, or null before. */
    ConnectedClient client() {
        return client;
    }

    /** CONNECT is accepted: the client state is set, once, just before CONNACK goes out. */
    void accepted(ConnectedClient accepted, ClientInfo described) {
        if (client != null) {
            throw new IllegalStateException("client '" + client.clientId() + "' was accepted already");
        }
        client = accepted;
        info = described;
        request = null;
    }

    /** Whether the accepted client speaks MQTT 5; false before CONNACK. */
    boolean isMqtt5() {
        return client != null && client.isMqtt5();
    }

    String clientId() {
        if (client != null) {
            return client.clientId();
        }
        return request == null ? "(before CONNECT)" : request.identity().clientId();
    }

    SocketAddress remoteAddress() {
        return ctx.channel().remoteAddress();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg); // read and discarded during a lingering close
            return;
        }
        if (deferred != null && (readsPaused || !deferred.isEmpty()) && !isPing(msg)) {
            deferred.add(msg); // keeps its reference until handled or the channel closes
            return;
        }
        handle(msg);
    }

    /** A PINGREQ is answered even while reads are paused, so a throttled client does not think the broker gone. */
    private boolean isPing(Object msg) {
        return client != null && msg instanceof MqttMessage m && m.decoderResult().isSuccess()
                && m.fixedHeader().messageType() == MqttMessageType.PINGREQ;
    }

    private void handle(Object msg) {
        try {
            if (!closing) {
                dispatch((MqttMessage) msg);
            }
        } catch (ProtocolViolation e) {
            violation(e);
        } finally {
            ReferenceCountUtil.release(msg);
        }
        PendingDrains.drainNow(); // subscribers on this loop that the packet fed, before the next packet
    }

    private void dispatch(MqttMessage msg) throws ProtocolViolation {
        if (msg.decoderResult().isFailure()) {
            decoderFailure(msg.decoderResult().cause());
            return;
        }
        MqttMessageType type = msg.fixedHeader().messageType();
        if (client == null) {
            beforeConnAck(type, msg);
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
            case PINGREQ -> ctx.write(MqttMessage.PINGRESP);
            case DISCONNECT -> ConnectHandler.disconnect(this, msg);
            case CONNECT -> throw ProtocolViolation.protocolError("a second CONNECT on one connection");
            case AUTH -> AuthHandler.reauthenticate(this, msg);
            default -> throw ProtocolViolation.protocolError(type + " may not be sent by a client");
        }
    }

    /** CONNECT first; during an enhanced authentication only AUTH (or DISCONNECT). */
    private void beforeConnAck(MqttMessageType type, MqttMessage msg) throws ProtocolViolation {
        try {
            if (authExchange == null) {
                if (type != MqttMessageType.CONNECT) {
                    throw ProtocolViolation.protocolError("the first packet must be CONNECT, got " + type);
                }
                ConnectHandler.connect(this, (MqttConnectMessage) msg);
            } else {
                duringAuthentication(type, msg);
            }
        } catch (ConnectRefused e) {
            refuse(e);
        }
    }

    private void duringAuthentication(MqttMessageType type, MqttMessage msg)
            throws ProtocolViolation, ConnectRefused {
        switch (type) {
            case AUTH -> AuthHandler.proceed(this, msg);
            case DISCONNECT -> closeNormally();
            default -> throw ProtocolViolation.protocolError(type + " during authentication, before CONNACK");
        }
    }

    /**
     * With {@code peer_cert_as_username}, the common name of the verified client certificate;
     * null if the listener does not use it or the client sent no certificate.
     */
    String certificateUsername() {
        SslHandler ssl = peerCertAsUsername ? ctx.pipeline().get(SslHandler.class) : null;
        return ssl == null ? null : ClientCertificate.commonName(ssl.engine().getSession());
    }

    /**
     * The client sent more than its publish rate allows: stop reading its socket for
     * {@code nanos} (TCP pushes back on the client) and hold back the packets already read, then
     * carry on once it is within its rate. The packets held back are at most what one socket
     * read brought in, because the read loop stops as soon as auto-read is off.
     */
    void pauseReads(long nanos) {
        if (pause(nanos)) {
            broker.metrics().increment(BrokerCounter.PUBLISH_THROTTLED);
            RefusalLog.log("pausing reads of client '{}' from {} for {} ms: over its publish rate", clientId(),
                    remoteAddress(), TimeUnit.NANOSECONDS.toMillis(nanos));
        }
    }

    /**
     * A subscriber's event loop lags behind this publisher ({@link io.sluice.broker.session.DrainLag}):
     * hold back this client's packets for {@value #DRAIN_LAG_HOLD_NANOS} ns, so that the subscriber's
     * loop drains its queue instead of the queue overflowing. The packets after the hold may hold again.
     */
    void holdForDrainLag() {
        pause(DRAIN_LAG_HOLD_NANOS);
    }

    /** Stops reading and defers the packets already read; false if already paused (the pending resume re-checks). */
    private boolean pause(long nanos) {
        if (readsPaused) {
            return false;
        }
        readsPaused = true;
        if (deferred == null) {
            deferred = new ArrayDeque<>();
        }
        ctx.channel().config().setAutoRead(false);
        ctx.executor().schedule(this::resumeReads, nanos, TimeUnit.NANOSECONDS);
        return true;
    }

    private void resumeReads() {
        if (!ctx.channel().isActive()) {
            return;
        }
        PublishThrottle throttle = client.throttle();
        long more = throttle == null ? 0 : throttle.pauseNanos(System.nanoTime());
        if (more > 0) {
            ctx.executor().schedule(this::resumeReads, more, TimeUnit.NANOSECONDS);
            return;
        }
        readsPaused = false;
        while (!readsPaused && !deferred.isEmpty()) {
            handle(deferred.poll()); // a PUBLISH among them may pause again
        }
        ctx.flush();
        if (!readsPaused) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    static int packetId(MqttMessage msg) {
        return ((MqttMessageIdVariableHeader) msg.variableHeader()).messageId();
    }

    /** Maps a decoder failure to what MQTT says the server answers, then closes. */
    private void decoderFailure(Throwable cause) throws ProtocolViolation {
        boolean tooLarge = cause instanceof TooLongFrameException;
        String reason = "malformed packet: " + MalformedPacket.describe(cause, broker.settings().maxPacketSize());
        if (client != null) {
            throw new ProtocolViolation(tooLarge ? MqttReasonCodes.Disconnect.PACKET_TOO_LARGE
                    : MqttReasonCodes.Disconnect.MALFORMED_PACKET, reason);
        }
        MqttVersion codecVersion = ctx.channel().attr(CODEC_VERSION).get();
        boolean v5 = codecVersion == MqttVersion.MQTT_5;
        if (cause instanceof MqttUnacceptableProtocolVersionException) {
            refuse(v5 ? MqttConnectReturnCode.CONNECTION_REFUSED_UNSUPPORTED_PROTOCOL_VERSION
                    : MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION, reason);
        } else if (cause instanceof MqttIdentifierRejectedException) {
            refuse(v5 ? MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID
                    : MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED, "client id not accepted (empty with a persistent session in MQTT 3.1.1, or too long)");
        } else if (v5) {
            refuse(tooLarge ? MqttConnectReturnCode.CONNECTION_REFUSED_PACKET_TOO_LARGE
                    : MqttConnectReturnCode.CONNECTION_REFUSED_MALFORMED_PACKET, reason);
        } else {
            broker.metrics().increment(BrokerCounter.CONNECTIONS_REFUSED);
            closeWithLog(reason + ", before CONNACK");
        }
    }

    private void refuse(ConnectRefused e) {
        if (e.isAuthentication()) {
            broker.metrics().increment(BrokerCounter.CONNECTIONS_REFUSED_AUTH);
        }
        refuse(e.code(), e.getMessage());
    }

    /** Refuses a CONNECT with {@code code} (valid for the connection's protocol version) and closes. */
    private void refuse(MqttConnectReturnCode code, String reason) {
        broker.metrics().increment(BrokerCounter.CONNECTIONS_REFUSED);
        authExchange = null;
        RefusalLog.log("refused client '{}' from {}: {} ({})", clientId(), remoteAddress(), reason, code);
        MqttConnAckMessage connAck = MqttMessageBuilders.connAck().returnCode(code).sessionPresent(false)
                .properties(MqttProperties.NO_PROPERTIES).build();
        closing = true;
        LingeringClose.after(ctx.writeAndFlush(connAck));
    }

    /** Ends the connection for a protocol violation: DISCONNECT with the reason code in MQTT 5, a plain close before. */
    private void violation(ProtocolViolation e) {
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
        if (isMqtt5()) {
            MqttProperties properties = new MqttProperties();
            if (client.limits().problemInformation()) {
                properties.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, reason));
            }
            MqttMessage disconnect = MqttMessageBuilders.disconnect().reasonCode(code.byteValue())
                    .properties(properties).build();
            LingeringClose.after(ctx.writeAndFlush(disconnect));
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
        willDiscarded = true;
        closeKeepingWill();
    }

    /** The client sent DISCONNECT asking for its will (MQTT 5 reason 0x04): close and keep it. */
    void closeKeepingWill() {
        closing = true;
        ctx.close();
    }

    @Override
    public void channelActive(ChannelHandlerContext context) {
        readDeadline.start(context, broker.settings().connectTimeoutMillis());
        context.fireChannelActive();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) {
        readDeadline.read();
        context.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) {
        if (!context.channel().isWritable()) {
            unwritableSince = System.nanoTime();
            return;
        }
        unwritableSince = 0;
        if (client != null) {
            outbound.drain();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            closing = true;
            broker.metrics().increment(BrokerCounter.TLS_HANDSHAKES_FAILED);
            RefusalLog.log("TLS handshake with {} failed: {}", remoteAddress(), handshake.cause().toString());
        }
        context.fireUserEventTriggered(event);
    }

    /** Nothing read for the CONNECT timeout (before CONNECT) or for keepalive × multiplier (after). */
    void readTimedOut() {
        if (readsPaused) {
            return; // silent because we stopped reading it, not because it went away
        }
        if (client == null) {
            closeWithLog("no CONNECT within " + broker.settings().connectTimeoutMillis() + " ms");
            return;
        }
        broker.metrics().increment(BrokerCounter.DISCONNECTS_KEEPALIVE);
        disconnect(MqttReasonCodes.Disconnect.KEEP_ALIVE_TIMEOUT, "keepalive expired");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        boolean tlsFailure = cause instanceof DecoderException && cause.getCause() instanceof SSLException;
        if (!closing && !tlsFailure) { // a failed TLS handshake was counted and logged as an event
            LOG.info("connection of client '{}' from {} failed: {}", clientId(), remoteAddress(), cause.toString());
            LOG.debug("connection failure detail", cause);
        }
        closing = true;
        context.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        readDeadline.stop();
        if (deferred != null) {
            deferred.forEach(ReferenceCountUtil::release);
            deferred.clear();
        }
        if (client != null) {
            broker.connectedClients().decrementAndGet();
            broker.sessions().detach(client.session(), this, willDiscarded ? null : client.will());
            LOG.debug("client '{}' from {} disconnected", clientId(), remoteAddress());
        }
        context.fireChannelInactive();
    }

    // ---- SessionLink: called from other threads ----

    @Override
    public void requestDrain() {
        EventLoop loop = ctx.channel().eventLoop();
        if (loop.inEventLoop()) {
            PendingDrains.request(outbound, loop);
        } else {
            loop.execute(outbound.drainTask());
        }
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

    @Override
    public void kick() {
        ctx.channel().eventLoop().execute(() -> {
            broker.metrics().increment(BrokerCounter.DISCONNECTS_KICKED);
            disconnect(MqttReasonCodes.Disconnect.ADMINISTRATIVE_ACTION, "kicked by an operator");
        });
    }

    @Override
    public ClientInfo info() {
        return info;
    }

    @Override
    public boolean keepsUp() {
        if (ctx == null) {
            return false;
        }
        if (ctx.channel().isWritable()) {
            return true;
        }
        long since = unwritableSince; // 0: the event saying so is still on its way
        return since == 0 || System.nanoTime() - since < DRAIN_GRACE_NANOS;
    }

    @Override
    public String sourceHost() {
        return remoteAddress() instanceof InetSocketAddress socket && socket.getAddress() != null
                ? socket.getAddress().getHostAddress() : null;
    }
}
