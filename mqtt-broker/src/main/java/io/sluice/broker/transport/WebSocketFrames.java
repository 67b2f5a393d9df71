package io.sluice.broker.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import io.sluice.net.RefusalLog;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;

/**
 * Puts the MQTT pipeline behind a WebSocket (MQTT 5 §6): the payload of each binary frame
 * (and of its continuations) goes on to the MQTT decoder as bytes, whatever the frame
 * boundaries, and every buffer the MQTT encoder writes goes out as one binary frame. A text
 * frame breaks the rule that MQTT travels in binary frames and closes the connection; a plain
 * HTTP request for any other path than the listener's gets 404. Sharable: one per listener.
 */
@ChannelHandler.Sharable
final class WebSocketFrames extends ChannelDuplexHandler {
    private final BrokerMetrics metrics;

    WebSocketFrames(BrokerMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof BinaryWebSocketFrame || msg instanceof ContinuationWebSocketFrame) {
            ctx.fireChannelRead(((WebSocketFrame) msg).content()); // the content's reference moves on with it
        } else if (msg instanceof WebSocketFrame frame) {
            ReferenceCountUtil.release(frame);
            metrics.increment(BrokerCounter.DISCONNECTS_PROTOCOL_ERROR);
            RefusalLog.log("closing WebSocket connection from {}: MQTT must travel in binary frames, got {}",
                    ctx.channel().remoteAddress(), frame.getClass().getSimpleName());
            ctx.close();
        } else if (msg instanceof FullHttpRequest request) {
            notFound(ctx, request);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    private static void notFound(ChannelHandlerContext ctx, FullHttpRequest request) {
        String uri = request.uri();
        request.release();
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND);
        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        RefusalLog.log("refused HTTP request for '{}' from {} on a WebSocket listener", uri,
                ctx.channel().remoteAddress());
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ctx.write(msg instanceof ByteBuf buf ? new BinaryWebSocketFrame(buf) : msg, promise);
    }
}
