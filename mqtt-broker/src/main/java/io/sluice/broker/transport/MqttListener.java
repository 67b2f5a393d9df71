package io.sluice.broker.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.broker.Broker;
import io.sluice.broker.connection.Connection;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A bound MQTT listener: accepts TCP connections and gives each the MQTT pipeline
 * (byte counter, decoder, encoder, idle timer, {@link Connection}).
 */
public final class MqttListener implements AutoCloseable {
    /** Each connection's write buffer: beyond the high mark the session queue holds messages instead. */
    private static final WriteBufferWaterMark WRITE_BUFFER = new WriteBufferWaterMark(32 * 1024, 128 * 1024);
    /** Client ids may be long in practice; MQTT 3.1's 23-character limit is not enforced. */
    private static final int MAX_CLIENT_ID_LENGTH = 65535;

    private final String name;
    private final Channel serverChannel;
    private final ChannelGroup connections;

    private MqttListener(String name, Channel serverChannel, ChannelGroup connections) {
        this.name = name;
        this.serverChannel = serverChannel;
        this.connections = connections;
    }

    /** Binds {@code address}; throws with the listener's name and address if the port cannot be bound. */
    public static MqttListener bind(String name, InetSocketAddress address, Broker broker, EventLoops loops) {
        TrafficCounter traffic = new TrafficCounter(broker.metrics());
        ChannelGroup connections = new DefaultChannelGroup(name, GlobalEventExecutor.INSTANCE);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loops.acceptor(), loops.workers())
                .channel(loops.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        connections.add(ch);
                        ChannelPipeline p = ch.pipeline();
                        p.addLast("traffic", traffic);
                        p.addLast("decoder", new MqttDecoder(broker.settings().maxPacketSize(), MAX_CLIENT_ID_LENGTH));
                        p.addLast("encoder", MqttEncoder.INSTANCE);
                        p.addLast("idle", new IdleStateHandler(broker.settings().connectTimeoutMillis(), 0, 0,
                                TimeUnit.MILLISECONDS));
                        p.addLast("mqtt", new Connection(broker));
                    }
                });
        try {
            Channel channel = bootstrap.bind(address).syncUninterruptibly().channel();
            return new MqttListener(name, channel, connections);
        } catch (RuntimeException e) {
            throw new IllegalStateException("listener '" + name + "' cannot bind " + address + ": " + e.getMessage(), e);
        }
    }

    public String name() {
        return name;
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
