package io.sluice.kafka;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.kafka.api.KafkaApis;
import io.sluice.kafka.api.Node;
import io.sluice.kafka.connection.KafkaConnection;
import io.sluice.net.EventLoops;
import io.sluice.net.auth.Authenticator;
import io.sluice.net.limits.ConnectionLimiter;
import io.sluice.streams.Streams;

/**
 * The Kafka-protocol listener: serves every stream as a Kafka topic of the same name, to any
 * Kafka client (see docs/kafka.md for the APIs, versions and limits). Each connection gets
 * {@code [tls] frame decoder (max_request_size) KafkaConnection}; requests are handled on
 * {@code sluice-kafka-request-*} threads, timers (long polls, group sessions) on
 * {@code sluice-kafka-timer}, and the event loops are the server's.
 */
public final class KafkaListener implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaListener.class);

    private final Channel serverChannel;
    private final ChannelGroup connections;
    private final KafkaApis apis;
    private final ExecutorService requests;
    private final ScheduledExecutorService timer;
    private final Node node;

    private KafkaListener(Channel serverChannel, ChannelGroup connections, KafkaApis apis, ExecutorService requests,
                          ScheduledExecutorService timer, Node node) {
        this.serverChannel = serverChannel;
        this.connections = connections;
        this.apis = apis;
        this.requests = requests;
        this.timer = timer;
        this.node = node;
    }

    /**
     * Binds the listener. {@code authenticator} checks SASL logins (and says whether anonymous
     * clients may connect), {@code authorizer} checks topic access, {@code publisher} takes records
     * produced by Kafka clients on to MQTT.
     */
    public static KafkaListener bind(KafkaSettings settings, Streams streams, Authenticator authenticator,
                                     KafkaAuthorizer authorizer, MqttPublisher publisher, EventLoops loops) {
        ExecutorService requests = requestThreads();
        ScheduledExecutorService timer = timer();
        KafkaApis apis = new KafkaApis(settings, streams, authenticator, authorizer, publisher, requests, timer);
        ConnectionLimiter limiter = new ConnectionLimiter(settings.listener().name(), new AtomicInteger(), 0, "",
                settings.listener().maxConnections(), settings.listener().maxConnRate(), reason -> { });
        ChannelGroup connections = new DefaultChannelGroup("kafka", GlobalEventExecutor.INSTANCE);
        ServerBootstrap bootstrap = loops.serverBootstrap(settings.listener().address())
                .option(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (!limiter.admit(ch)) {
                            return;
                        }
                        connections.add(ch);
                        ChannelPipeline p = ch.pipeline();
                        if (settings.listener().tls() != null) {
                            p.addLast("tls", settings.listener().tls().newHandler(ch.alloc()));
                        }
                        p.addLast("frames", new LengthFieldBasedFrameDecoder(settings.maxRequestSize() + Integer.BYTES,
                                0, Integer.BYTES, 0, Integer.BYTES));
                        p.addLast("kafka", new KafkaConnection(apis, requests));
                    }
                });
        Channel channel;
        try {
            channel = bootstrap.bind(settings.listener().address()).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            apis.close();
            requests.shutdownNow();
            timer.shutdownNow();
            throw new IllegalStateException("listener 'kafka' cannot bind " + settings.listener().address() + ": "
                    + e.getMessage(), e);
        }
        InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
        Node node = new Node(Node.ID, advertisedHost(settings, bound),
                settings.advertisedPort() > 0 ? settings.advertisedPort() : bound.getPort(), clusterId());
        apis.advertise(node);
        channel.config().setAutoRead(true);
        LOG.info("listener 'kafka' accepting Kafka clients on {} (advertised {}:{}, {}{})", bound, node.host(), node.port(),
                settings.listener().tls() != null ? "TLS" : "plain",
                apis.anonymousAllowed() ? ", SASL optional" : ", SASL required");
        return new KafkaListener(channel, connections, apis, requests, timer, node);
    }

    private static String advertisedHost(KafkaSettings settings, InetSocketAddress bound) {
        if (settings.advertisedHost() != null) {
            return settings.advertisedHost();
        }
        InetAddress address = bound.getAddress();
        if (!address.isAnyLocalAddress()) {
            return address.getHostAddress();
        }
        try {
            return InetAddress.getLocalHost().getCanonicalHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    /** The cluster id: fixed, since the one broker is the cluster. */
    private static String clusterId() {
        UUID uuid = UUID.nameUUIDFromBytes("sluice-cluster".getBytes(StandardCharsets.UTF_8));
        return new Uuid(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits()).toString();
    }

    /** One request thread per core: request work is CPU (decoding, encoding, CRCs) or short storage calls. */
    private static ExecutorService requestThreads() {
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        AtomicInteger count = new AtomicInteger();
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), runnable -> {
            Thread thread = new Thread(runnable, "sluice-kafka-request-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "sluice-kafka-timer");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /** The bound address; with port 0 requested, the port the OS chose. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** {@code host:port} as clients are told to use it. */
    public String advertised() {
        return node.host() + ":" + node.port();
    }

    /** Stops accepting, closes every connection, then stops the request threads. */
    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly(2_000);
        apis.close();
        timer.shutdownNow();
        requests.shutdown();
        try {
            if (!requests.awaitTermination(2, TimeUnit.SECONDS)) {
                requests.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
