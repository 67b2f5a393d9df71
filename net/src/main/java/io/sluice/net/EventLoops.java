package io.sluice.net;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.TimeUnit;

/**
 * The I/O threads of all listeners: {@code threads} event loops, on native epoll where the
 * platform has it and on NIO elsewhere. The listening sockets live on the same loops as the
 * connections: a separate acceptor thread would only add a hand-off per new connection.
 */
public final class EventLoops implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoops.class);

    private final EventLoopGroup workers;
    private final boolean epoll;

    /** Creates the loops; {@code threads} of 0 means one per available processor. */
    public EventLoops(int threads) {
        this.epoll = Epoll.isAvailable();
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        int workerCount = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        this.workers = new MultiThreadIoEventLoopGroup(workerCount, new DefaultThreadFactory("sluice-io"), factory);
        if (!epoll) {
            LOG.info("native epoll unavailable ({}), using NIO", Epoll.unavailabilityCause().toString());
        }
    }

    /**
     * A server bootstrap on these event loops for a listener on {@code address}, with what every TCP
     * front-end sets: this transport's server channel, a backlog of 1024, address reuse and
     * TCP_NODELAY; the caller adds its own options and child handler. An IPv4 address gets an IPv4
     * socket, as other brokers open, rather than a dual-stack IPv6 socket that sees IPv4 clients as
     * mapped addresses; an IPv6 address keeps the dual-stack socket. TCP_NODELAY stays an explicit
     * child option although Netty reports it on for accepted channels: without it a subscriber
     * behind a stuck one went 5 s without a message ({@code SlowSubscriberTest}, in each of two runs).
     */
    public ServerBootstrap serverBootstrap(InetSocketAddress address) {
        return new ServerBootstrap()
                .group(workers)
                .channelFactory(serverChannel(address.getAddress() instanceof Inet4Address))
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true);
    }

    private ChannelFactory<ServerChannel> serverChannel(boolean ipv4) {
        if (epoll) {
            return ipv4 ? () -> new EpollServerSocketChannel(SocketProtocolFamily.INET) : EpollServerSocketChannel::new;
        }
        return ipv4 ? () -> new NioServerSocketChannel(SelectorProvider.provider(), SocketProtocolFamily.INET)
                : NioServerSocketChannel::new;
    }

    /** Whether the native epoll transport is in use. */
    public boolean isEpoll() {
        return epoll;
    }

    @Override
    public void close() {
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
