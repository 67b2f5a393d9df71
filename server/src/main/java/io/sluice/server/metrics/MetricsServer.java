package io.sluice.server.metrics;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.function.Supplier;

/**
 * The HTTP server of {@code http_server.port}: {@code GET /metrics} answers with everything in
 * its {@link PrometheusRegistry} in the Prometheus text format, {@code GET /health} with 200
 * {@code {"status":"UP"}} while the server runs with nothing wrong, and 503
 * {@code {"status":"DOWN","problems":[…]}} once it is stopping or while a part cannot do its work (an
 * exchange whose write-ahead log is offline or unwritable, whose Parquet writer is dead), one line
 * per problem. Anything else gets 404 (405 for methods other than GET and HEAD).
 *
 * <p>It has its own single I/O thread, {@code sluice-http}, so a scrape never delays MQTT
 * traffic on the broker's event loops.
 */
public final class MetricsServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    private static final int MAX_REQUEST_BYTES = 16 * 1024;
    /** An idle keep-alive connection is closed after this; scrapers reconnect. */
    private static final int IDLE_SECONDS = 120;

    private final EventLoopGroup group;
    private final Channel channel;

    private MetricsServer(EventLoopGroup group, Channel channel) {
        this.group = group;
        this.channel = channel;
    }

    /** Binds {@code address}; throws with the address if it cannot. */
    public static MetricsServer start(InetSocketAddress address, PrometheusRegistry registry, Supplier<List<String>> problems) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("sluice-http"),
                NioIoHandler.newFactory());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new ReadTimeoutHandler(IDLE_SECONDS), new HttpServerCodec(),
                                new HttpObjectAggregator(MAX_REQUEST_BYTES), new Endpoints(registry, problems));
                    }
                });
        try {
            return new MetricsServer(group, bootstrap.bind(address).syncUninterruptibly().channel());
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
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
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Answers one request; runs on the sluice-http thread. */
    private static final class Endpoints extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final PrometheusRegistry registry;
        private final Supplier<List<String>> problems;
        private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

        Endpoints(PrometheusRegistry registry, Supplier<List<String>> problems) {
            this.registry = registry;
            this.problems = problems;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            FullHttpResponse response;
            String path = new QueryStringDecoder(request.uri()).path();
            if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
                response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain", "only GET and HEAD\n");
            } else if (path.equals("/metrics")) {
                response = metrics(ctx);
            } else if (path.equals("/health")) {
                response = health(problems.get());
            } else {
                response = text(HttpResponseStatus.NOT_FOUND, "text/plain", "not found; try /metrics or /health\n");
            }
            if (request.method().equals(HttpMethod.HEAD)) {
                response.content().clear();
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (keepAlive) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            }
            var future = ctx.writeAndFlush(response);
            if (!keepAlive) {
                future.addListener(ChannelFutureListener.CLOSE);
            }
        }

        private static FullHttpResponse health(List<String> problems) {
            if (problems.isEmpty()) {
                return text(HttpResponseStatus.OK, "application/json", "{\"status\":\"UP\"}\n");
            }
            StringBuilder body = new StringBuilder("{\"status\":\"DOWN\",\"problems\":[");
            for (int i = 0; i < problems.size(); i++) {
                body.append(i == 0 ? "" : ",").append(jsonString(problems.get(i)));
            }
            return text(HttpResponseStatus.SERVICE_UNAVAILABLE, "application/json", body.append("]}\n").toString());
        }

        /** A JSON string literal: quotes, backslashes and control characters escaped. */
        private static String jsonString(String s) {
            StringBuilder out = new StringBuilder(s.length() + 2).append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c < 0x20) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
            return out.append('"').toString();
        }

        private FullHttpResponse metrics(ChannelHandlerContext ctx) {
            ByteBuf body = ctx.alloc().buffer();
            try (ByteBufOutputStream out = new ByteBufOutputStream(body)) {
                writer.write(out, registry.scrape());
            } catch (IOException | RuntimeException e) {
                body.release();
                LOG.error("collecting metrics failed", e);
                return text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "text/plain", "collecting metrics failed: "
                        + e + "\n");
            }
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, writer.getContentType());
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
            return response;
        }

        private static FullHttpResponse text(HttpResponseStatus status, String type, String body) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, type + "; charset=utf-8");
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
            return response;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("HTTP connection from {} failed", ctx.channel().remoteAddress(), cause);
            ctx.close();
        }
    }
}
