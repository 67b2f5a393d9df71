package io.sluice.bridges.mqtt;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.sluice.bridges.BridgeCounters;
import io.sluice.bridges.LocalPublisher;
import io.sluice.bridges.Remote;
import io.sluice.bridges.backlog.BacklogRecord;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.net.tls.TlsClientContext;
import io.sluice.net.tls.TlsClientSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An MQTT broker as a bridge's remote: the bridge's own MQTT 3.1, 3.1.1 and 5 client, on Netty's
 * MQTT codec, one connection at a time, all of it on one event loop.
 *
 * <p>Why not the HiveMQ client: its MQTT 3 CONNECT encoder writes protocol level 4 as a constant
 * and it offers no hook into its pipeline, so it cannot set the bridge bit ({@link BridgeBit});
 * it does not speak MQTT 3.1 ({@code proto_ver = 3}); and it keeps its own unbounded publish queue
 * and session state, which would resend messages the bridge's backlog already resends. This client
 * keeps none of that: the backlog is the queue, {@link Inflight} the session.
 *
 * <p>What the remote grants in CONNACK is honoured: at most Receive Maximum messages unacknowledged
 * (the bridge's window, further capped by {@code max_send_queue_len}), no packet above Maximum
 * Packet Size (such messages are refused and counted), topic aliases up to Topic Alias Maximum,
 * and Server Keep Alive. Subscriptions carry No Local (MQTT 5); 3.1 / 3.1.1 connections set the
 * bridge bit unless {@code no_local_v4 = false}, and fall back to a plain CONNECT if the remote
 * refuses it. Messages from the remote go to the local broker through the {@link LocalPublisher},
 * and are acknowledged to the remote only once the local publish is as durable as a local client's.
 */
public final class MqttRemote implements Remote {
    private static final Logger LOG = LoggerFactory.getLogger(MqttRemote.class);
    /** How long the TCP connect and the CONNACK may take. */
    static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    /** The window towards 3.x remotes, which announce no Receive Maximum, unless max_send_queue_len says otherwise. */
    static final int MQTT3_WINDOW = 1024;
    /** QoS 0 messages that may wait for the event loop before more are dropped. */
    private static final int UNSTORED_QUEUE = 8192;

    private final MqttBridgeSettings settings;
    private final EventLoop loop;
    private final LocalPublisher publisher;
    private final ClientIdentity identity;
    private final BridgeCounters counters;
    private final String nodeId;
    private final TlsClientContext tls;
    private final List<SubscriptionRule> subscriptions;
    private final List<TopicMapping> subscriptionMappings;
    private final Inflight inflight = new Inflight();
    private final boolean[] receivedQos2 = new boolean[1 << 16];
    private final AtomicInteger unstoredQueued = new AtomicInteger();
    private volatile MqttConnection connection;
    private volatile boolean bridgeBitRefused;

    /**
     * @param loop      the event loop every connection of this remote runs on
     * @param publisher where messages from the remote's subscriptions are published
     * @param identity  who the bridge is to the local ACL
     * @param nodeId    this Sluice's {@code bridges.node_id}, added to the path of what goes to MQTT 5 remotes
     */
    public MqttRemote(MqttBridgeSettings settings, EventLoop loop, LocalPublisher publisher, ClientIdentity identity,
                      BridgeCounters counters, String nodeId) throws IOException {
        this.settings = settings;
        this.loop = loop;
        this.publisher = publisher;
        this.identity = identity;
        this.counters = counters;
        this.nodeId = nodeId;
        this.tls = settings.server().tls() ? new TlsClientContext(settings.ssl() != null ? settings.ssl()
                : new TlsClientSettings(null, null, null, null, true)) : null;
        this.subscriptions = settings.subscriptions();
        this.subscriptionMappings = subscriptions.stream().map(SubscriptionRule::mapping).toList();
    }

    @Override
    public String address() {
        return settings.server().toString();
    }

    MqttBridgeSettings settings() {
        return settings;
    }

    Inflight inflight() {
        return inflight;
    }

    boolean[] receivedQos2() {
        return receivedQos2;
    }

    LocalPublisher publisher() {
        return publisher;
    }

    ClientIdentity identity() {
        return identity;
    }

    BridgeCounters counters() {
        return counters;
    }

    /** This Sluice's node id ({@link io.sluice.bridges.BridgePath}). */
    String nodeId() {
        return nodeId;
    }

    List<SubscriptionRule> subscriptions() {
        return subscriptions;
    }

    /** Whether this connection attempt sets the bridge bit. */
    boolean bridgeBit() {
        return settings.bridgeBit() && !settings.isMqtt5() && !bridgeBitRefused;
    }

    /** The remote refused a CONNECT with the bridge bit: the next attempts connect as a plain client. */
    void bridgeBitRefused() {
        if (!bridgeBitRefused) {
            bridgeBitRefused = true;
            LOG.warn("bridge {}: {} refused the bridge bit (protocol level | 0x80); connecting as a plain MQTT {}"
                    + " client from now on: loops are then prevented only on this side", settings.name(), address(),
                    settings.protoVer() == 3 ? "3.1" : "3.1.1");
        }
    }

    /** The local topic for a message that arrived on {@code topic}: the first matching subscription renames it. */
    String localTopic(String topic) {
        for (int i = 0; i < subscriptions.size(); i++) {
            if (TopicFilter.matches(subscriptions.get(i).remoteTopic(), topic)) {
                return subscriptionMappings.get(i).map(topic);
            }
        }
        return topic;
    }

    /** The RETAIN flag of the local publish of a message that arrived on {@code topic} with {@code retained}. */
    boolean localRetain(String topic, boolean retained) {
        for (SubscriptionRule rule : subscriptions) {
            if (TopicFilter.matches(rule.remoteTopic(), topic)) {
                return rule.localRetain(retained);
            }
        }
        return retained;
    }

    @Override
    public void connect(Events events) {
        MqttConnection next = new MqttConnection(this, events, bridgeBit());
        MqttConnection previous = connection;
        connection = next;
        if (previous != null) {
            previous.close("replaced by a new connection");
        }
        int maxBytes = settings.connect().maximumPacketSize() > 0 ? settings.connect().maximumPacketSize()
                : PublishPacket.PROTOCOL_MAXIMUM;
        Bootstrap bootstrap = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                .option(ChannelOption.TCP_NODELAY, settings.tcpNoDelay())
                .option(ChannelOption.SO_KEEPALIVE, settings.tcpKeepAlive())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        ChannelPipeline pipeline = channel.pipeline();
                        if (tls != null) {
                            pipeline.addLast("tls", tls.newHandler(channel.alloc(), settings.server().host(),
                                    settings.server().port()));
                        }
                        if (next.usesBridgeBit()) {
                            pipeline.addLast("bridge-bit", new BridgeBit());
                        }
                        pipeline.addLast("decoder", new MqttDecoder(maxBytes));
                        pipeline.addLast("encoder", MqttEncoder.INSTANCE);
                        pipeline.addLast("connection", next);
                    }
                });
        ChannelFuture future = bootstrap.connect(new InetSocketAddress(settings.server().host(), settings.server().port()));
        future.addListener(done -> {
            if (!done.isSuccess()) {
                events.failed("cannot reach " + address() + ": " + done.cause().getMessage(), done.cause());
            }
        });
    }

    /** Messages the bridge may hand over beyond the remote's Receive Maximum: they wait in the connection. */
    static final int LOOKAHEAD = 1024;

    @Override
    public int lookahead() {
        return LOOKAHEAD;
    }

    @Override
    public void send(List<Outgoing> batch) {
        MqttConnection current = connection;
        if (current != null) {
            loop.execute(() -> current.publish(batch));
        }
    }

    @Override
    public boolean sendUnstored(BacklogRecord record) {
        MqttConnection current = connection;
        if (current == null || !current.isWritable()) {
            return false;
        }
        if (unstoredQueued.incrementAndGet() > UNSTORED_QUEUE) {
            unstoredQueued.decrementAndGet();
            return false;
        }
        loop.execute(() -> {
            unstoredQueued.decrementAndGet();
            current.publishUnstored(record);
        });
        return true;
    }

    @Override
    public void disconnect(String reason) {
        MqttConnection current = connection;
        if (current != null) {
            current.close(reason);
        }
    }

    @Override
    public void close() {
        disconnect("the bridge is stopping");
    }

    @Override
    public String toString() {
        return "MqttRemote[" + settings.name() + ", " + address() + "]";
    }
}
