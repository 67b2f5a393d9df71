package io.sluice.broker.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;

/** Counts the bytes every connection reads and writes, at the head of the pipeline. Sharable. */
@ChannelHandler.Sharable
final class TrafficCounter extends ChannelDuplexHandler {
    private final BrokerMetrics metrics;

    TrafficCounter(BrokerMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            metrics.add(BrokerCounter.BYTES_RECEIVED, buf.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf buf) {
            metrics.add(BrokerCounter.BYTES_SENT, buf.readableBytes());
        }
        ctx.write(msg, promise);
    }
}
