package io.sluice.broker.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.broker.Broker;
import io.sluice.broker.connection.ConnectPeek;
import io.sluice.broker.connection.Connection;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.net.EventLoops;
import io.sluice.net.ListenerSpec;
import io.sluice.net.limits.ConnectionLimiter;

import java.net.InetSocketAddress;

/**
 * A bound MQTT listener: admits each TCP connection against the connection limits, then gives
 * it the MQTT pipeline (byte counter, first-packet peek, decoder, encoder, {@link Connection}), behind
 * TLS and/or a WebSocket when the {@link ListenerSpec} asks for them:
 * <pre>
 * [tls] [http codec, aggregator, WebSocket handshake, {@link WebSocketFrames}] traffic connect-peek decoder encoder mqtt
 * </pre>
 */
public final class MqttListener implements AutoCloseable {
    /** Each connection's write buffer: beyond the high mark the session queue holds messages instead. */
    private static final WriteBufferWaterMark WRITE_BUFFER = new WriteBufferWaterMark(32 * 1024, 128 * 1024);
    /** Client ids may be long in practice; MQTT 3.1's 23-character limit is not enforced. */
    private static final int MAX_CLIENT_ID_LENGTH = 65535;
    /** WebSocket subprotocols of MQTT 5 §6 and 3.1.1 §6, and of MQTT 3.1 clients. */
    private static final String SUBPROTOCOLS = "mqtt,mqttv3.1";
    /** Enough for the HTTP upgrade request; WebSocket frames are not aggregated. */
    private static final int MAX_HANDSHAKE_BYTES = 16 * 1024;

    private final ListenerSpec spec;
    private final Channel serverChannel;
    private final ChannelGroup connections;
    private final ConnectionLimiter limiter;

    private MqttListener(ListenerSpec spec, Channel serverChannel, ChannelGroup connections,
                         ConnectionLimiter limiter) {
        this.spec = spec;
        this.serverChannel = serverChannel;
        this.connections = connections;
        this.limiter = limiter;
    }

    /** Binds a plain TCP listener on {@code address}. */
    public static MqttListener bind(String name, InetSocketAddress address, Broker broker, EventLoops loops) {
        return bind(ListenerSpec.tcp(name, address), broker, loops);
    }

    /** Binds the listener {@code spec} describes; throws with the listener's name and address if the port cannot be bound. */
    public static MqttListener bind(ListenerSpec spec, Broker broker, EventLoops loops) {
        ConnectionLimiter limiter = new ConnectionLimiter(spec.name(), broker.openConnections(),
                broker.settings().maxConnections(), "mqtt.max_connections", spec.maxConnections(), spec.maxConnRate(),
                reason -> broker.metrics().increment(reason == ConnectionLimiter.Reason.RATE
                        ? BrokerCounter.CONNECTIONS_REFUSED_RATE : BrokerCounter.CONNECTIONS_REFUSED_LIMIT));
        ChannelGroup connections = new DefaultChannelGroup(spec.name(), GlobalEventExecutor.INSTANCE);
        ServerBootstrap bootstrap = loops.serverBootstrap(spec.address())
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER)
                .childHandler(new Pipeline(spec, broker, limiter, connections));
        try {
            Channel channel = bootstrap.bind(spec.address()).syncUninterruptibly().channel();
            return new MqttListener(spec, channel, connections, limiter);
        } catch (RuntimeException e) {
            throw new IllegalStateException("listener '" + spec.name() + "' cannot bind " + spec.address() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Admits each accepted connection against the limits, then gives it the MQTT pipeline. */
    private static final class Pipeline extends ChannelInitializer<Channel> {
        private final ListenerSpec spec;
        private final Broker broker;
        private final ConnectionLimiter limiter;
        private final ChannelGroup connections;
        private final TrafficCounter traffic;
        private final WebSocketFrames frames;

        Pipeline(ListenerSpec spec, Broker broker, ConnectionLimiter limiter, ChannelGroup connections) {
            this.spec = spec;
            this.broker = broker;
            this.limiter = limiter;
            this.connections = connections;
            this.traffic = new TrafficCounter(broker.metrics());
            this.frames = new WebSocketFrames(broker.metrics());
        }

        @Override
        protected void initChannel(Channel ch) {
            if (!limiter.admit(ch)) {
                return;
            }
            connections.add(ch);
            ChannelPipeline p = ch.pipeline();
            if (spec.tls() != null) {
                p.addLast("tls", spec.tls().newHandler(ch.alloc()));
            }
            if (spec.webSocketPath() != null) {
                addWebSocket(p, spec.webSocketPath(), broker.settings().maxPacketSize(), frames);
            }
            addMqtt(p, broker, traffic, spec.peerCertAsUsername());
        }
    }

    /**
     * The MQTT part of every connection's pipeline, after TLS and the WebSocket: byte counter,
     * CONNECT peek, decoder, encoder and {@link Connection} (which keeps the read deadline). The
     * fuzz test runs it on an EmbeddedChannel.
     */
    static void addMqtt(ChannelPipeline p, Broker broker, TrafficCounter traffic, boolean peerCertAsUsername) {
        p.addLast("traffic", traffic);
        p.addLast("connect-peek", new ConnectPeek(broker.settings().maxPacketSize()));
        p.addLast("decoder", new MqttDecoder(broker.settings().maxPacketSize(), MAX_CLIENT_ID_LENGTH));
        p.addLast("encoder", MqttEncoder.INSTANCE);
        p.addLast("mqtt", new Connection(broker, peerCertAsUsername));
    }

    /** HTTP upgrade at {@code path} with subprotocol {@code mqtt}; then frames in, bytes out (and back). */
    private static void addWebSocket(ChannelPipeline p, String path, int maxPacketSize, WebSocketFrames frames) {
        WebSocketServerProtocolConfig config = WebSocketServerProtocolConfig.newBuilder()
                .websocketPath(path)
                .subprotocols(SUBPROTOCOLS)
                .checkStartsWith(false)
                // A frame may carry a whole packet of the largest size allowed, plus its header.
                .maxFramePayloadLength(Math.max(maxPacketSize + 8, 64 * 1024))
                .build();
        p.addLast("http", new HttpServerCodec());
        p.addLast("http-aggregator", new HttpObjectAggregator(MAX_HANDSHAKE_BYTES));
        p.addLast("websocket", new WebSocketServerProtocolHandler(config));
        p.addLast("websocket-frames", frames);
    }

    public String name() {
        return spec.name();
    }

    public ListenerSpec spec() {
        return spec;
    }

    /** Connections open on this listener now. */
    public int openConnections() {
        return limiter.open();
    }

    /** The bound address; with port 0 requested, the port the OS chose. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /**
     * Stops accepting, then tells every client the server is shutting down (DISCONNECT 0x8B for
     * MQTT 5) and waits up to {@code timeoutMillis} for the connections to close.
     */
    public void close(long timeoutMillis) {
        serverChannel.close().syncUninterruptibly();
        for (Channel channel : connections) {
            Connection connection = channel.pipeline().get(Connection.class);
            if (connection != null) {
                connection.serverShuttingDown();
            } else {
                channel.close();
            }
        }
        connections.newCloseFuture().awaitUninterruptibly(timeoutMillis);
    }

    @Override
    public void close() {
        close(2_000);
    }
}
