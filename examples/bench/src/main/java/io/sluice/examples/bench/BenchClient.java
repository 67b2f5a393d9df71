package io.sluice.examples.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** One load-generator connection: a publisher, a subscriber, or both. */
final class BenchClient implements FrameCounter.Listener {
    final AtomicLong received = new AtomicLong();
    final AtomicLong acknowledged = new AtomicLong();
    final AtomicLong sent = new AtomicLong();
    private final CompletableFuture<Void> connAck = new CompletableFuture<>();
    private volatile CompletableFuture<Void> subAck = new CompletableFuture<>();
    private Channel channel;
    private ByteBuf template;
    private int packetIdOffset;
    private int qos;
    private int nextPacketId;

    /** Connects and completes CONNECT/CONNACK. */
    static BenchClient connect(EventLoopGroup group, Class<? extends SocketChannel> type, String host, int port,
                               String clientId) throws Exception {
        return connect(group, type, host, port, clientId, true);
    }

    static BenchClient connect(EventLoopGroup group, Class<? extends SocketChannel> type, String host, int port,
                               String clientId, boolean cleanSession) throws Exception {
        BenchClient client = new BenchClient();
        client.channel = new Bootstrap().group(group).channel(type)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new FrameCounter(client));
                    }
                })
                .connect(host, port).sync().channel();
        client.channel.writeAndFlush(Packets.connect(clientId, 600, cleanSession));
        client.connAck.get(10, TimeUnit.SECONDS);
        return client;
    }

    void subscribe(String filter, int subscribeQos) throws Exception {
        subAck = new CompletableFuture<>();
        channel.writeAndFlush(Packets.subscribe(1, filter, subscribeQos));
        subAck.get(10, TimeUnit.SECONDS);
    }

    /** Prepares the message this client publishes. */
    void publishes(String topic, int publishQos, byte[] payload) {
        this.qos = publishQos;
        this.template = Packets.publish(topic, publishQos, payload);
        this.packetIdOffset = Packets.packetIdOffset(template, topic, payload.length);
    }

    /** Publishes {@code count} retained messages on distinct topics {@code prefix/<i>}, waiting for each PUBACK. */
    void retain(String prefix, int count, byte[] payload) throws InterruptedException {
        for (int i = 0; i < count; i += 256) {
            int end = Math.min(count, i + 256);
            long target = acknowledged.get() + (end - i);
            for (int j = i; j < end; j++) {
                ByteBuf packet = Packets.publish(prefix + "/" + j, 1, true, payload);
                packet.setShort(Packets.packetIdOffset(packet, prefix + "/" + j, payload.length), j % 65535 + 1);
                channel.write(packet, channel.voidPromise());
            }
            channel.flush();
            while (acknowledged.get() < target) {
                Thread.sleep(1);
            }
        }
    }

    boolean isWritable() {
        return channel.isWritable();
    }

    /** Sends {@code count} messages from the client's event loop and flushes once. */
    void send(int count) {
        sent.addAndGet(count);
        channel.eventLoop().execute(() -> {
            for (int i = 0; i < count; i++) {
                channel.write(next(), channel.voidPromise());
            }
            channel.flush();
        });
    }

    private ByteBuf next() {
        if (qos == 0) {
            return template.retainedDuplicate();
        }
        ByteBuf copy = channel.alloc().buffer(template.readableBytes());
        copy.writeBytes(template, template.readerIndex(), template.readableBytes());
        nextPacketId = nextPacketId == 65535 ? 1 : nextPacketId + 1;
        copy.setShort(packetIdOffset, nextPacketId);
        return copy;
    }

    void close() {
        channel.writeAndFlush(Packets.disconnect());
        channel.close().syncUninterruptibly();
        if (template != null) {
            template.release();
        }
    }

    @Override
    public void connected() {
        connAck.complete(null);
    }

    @Override
    public void subscribed() {
        subAck.complete(null);
    }

    @Override
    public void published(int count) {
        received.addAndGet(count);
    }

    @Override
    public void acknowledged(int count) {
        acknowledged.addAndGet(count);
    }
}
