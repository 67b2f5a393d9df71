package io.sluice.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.net.tls.TlsContext;

import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP server of {@code http_server}: {@code /metrics}, {@code /health}, the API under
 * {@code /api/v4} and the dashboard, over plain HTTP or TLS. One I/O thread
 * ({@code sluice-http}) parses requests and writes replies; endpoints run on a few worker
 * threads ({@code sluice-http-worker}), so a scrape or a long range read never delays MQTT
 * traffic on the broker's event loops, nor other HTTP clients.
 */
public final class HttpServer implements AutoCloseable {
    /** An idle keep-alive connection is closed after this; clients reconnect. */
    private static final int IDLE_SECONDS = 120;
    private static final int WORKERS = 4;
    /** Requests waiting for a worker; beyond it a connection is closed rather than queued. */
    private static final int QUEUED_REQUESTS = 256;

    private final EventLoopGroup group;
    private final ExecutorService workers;
    private final Channel channel;

    private HttpServer(EventLoopGroup group, ExecutorService workers, Channel channel) {
        this.group = group;
        this.workers = workers;
        this.channel = channel;
    }

    /**
     * Binds {@code address} and serves {@code routes}; throws with the address if it cannot.
     *
     * @param tls         TLS for every connection, or null for plain HTTP
     * @param maxBody     the largest request body; a larger one gets 400
     * @param authMetrics whether {@link Routes.Access#METRICS} routes ask for credentials too
     */
    public static HttpServer start(InetSocketAddress address, Routes routes, BasicAuth auth, boolean authMetrics,
                                   TlsContext tls, int maxBody) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("sluice-http"),
                NioIoHandler.newFactory());
        ThreadPoolExecutor workers = new ThreadPoolExecutor(WORKERS, WORKERS, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(QUEUED_REQUESTS), new DefaultThreadFactory("sluice-http-worker", true));
        RequestHandler handler = new RequestHandler(routes, auth, authMetrics, workers);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ChannelPipeline p = ch.pipeline();
                        p.addLast(new ReadTimeoutHandler(IDLE_SECONDS));
                        if (tls != null) {
                            p.addLast(tls.newHandler(ch.alloc()));
                        }
                        p.addLast(new HttpServerCodec(), new BodyLimit(maxBody), handler);
                    }
                });
        try {
            return new HttpServer(group, workers, bootstrap.bind(address).syncUninterruptibly().channel());
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            workers.shutdownNow();
            throw new IllegalStateException("http_server cannot bind " + address + ": " + e.getMessage(), e);
        }
    }

    /** The bound address; with port 0 requested, the port the OS chose. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        workers.shutdownNow();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Gathers a request's body up to {@code http_server.max_body}; a larger one gets 400 with the limit, then the connection closes. */
    private static final class BodyLimit extends HttpObjectAggregator {
        private final int maxBody;

        BodyLimit(int maxBody) {
            super(maxBody);
            this.maxBody = maxBody;
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            Reply reply = Reply.error(ApiException.badParameter("the request body is larger than http_server.max_body ("
                    + maxBody + " bytes)"));
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST,
                    Unpooled.wrappedBuffer(reply.body()));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, Reply.JSON);
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
