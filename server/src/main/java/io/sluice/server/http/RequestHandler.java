package io.sluice.server.http;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Serves one request at a time per connection: finds the route, checks credentials where the
 * route asks for them, runs the endpoint on a worker thread (never on the I/O thread, since
 * endpoints read files and verify passwords) and writes the reply, whole or streamed. Reads are
 * paused while a request is served, so replies go out in request order. Shared by all connections.
 */
@ChannelHandler.Sharable
final class RequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);
    /** The header the dashboard's own requests carry; their 401s come without a browser login prompt. */
    static final String DASHBOARD_HEADER = "X-Requested-With";

    private final Routes routes;
    private final BasicAuth auth;
    private final boolean authMetrics;
    private final Executor workers;

    RequestHandler(Routes routes, BasicAuth auth, boolean authMetrics, Executor workers) {
        this.routes = routes;
        this.auth = auth;
        this.authMetrics = authMetrics;
        this.workers = workers;
    }

    /** What the worker needs of a request, copied off the Netty buffers on the I/O thread. */
    private record Incoming(HttpMethod method, QueryStringDecoder uri, byte[] body, String authorization,
                            boolean fromDashboard, boolean keepAlive, InetSocketAddress from) {
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        HttpHeaders headers = request.headers();
        Incoming incoming = new Incoming(request.method(), new QueryStringDecoder(request.uri()),
                ByteBufUtil.getBytes(request.content()), headers.get(HttpHeaderNames.AUTHORIZATION),
                headers.contains(DASHBOARD_HEADER), HttpUtil.isKeepAlive(request),
                (InetSocketAddress) ctx.channel().remoteAddress());
        ctx.channel().config().setAutoRead(false);
        try {
            workers.execute(() -> serve(ctx, incoming));
        } catch (RejectedExecutionException e) {
            ctx.close(); // the server is stopping
        }
    }

    private void serve(ChannelHandlerContext ctx, Incoming in) {
        Reply reply;
        try {
            Routes.Match match = routes.find(in.method(), in.uri().rawPath());
            String user = null;
            if (asksForCredentials(match.route().access())) {
                BasicAuth.Outcome outcome = auth.check(in.authorization(), in.from());
                if (outcome != BasicAuth.Outcome.ACCEPTED) {
                    refuse(ctx, in, outcome);
                    return;
                }
                user = BasicAuth.userOf(in.authorization());
            }
            reply = match.route().endpoint().handle(new ApiRequest(in.method(), in.uri().path(), match.params(),
                    in.uri().parameters(), in.body(), user));
        } catch (ApiException e) {
            reply = Reply.error(e);
        } catch (RuntimeException e) {
            LOG.error("HTTP {} {} failed", in.method(), in.uri().path(), e);
            reply = Reply.error(new ApiException(HttpResponseStatus.INTERNAL_SERVER_ERROR, ApiCode.UNKNOWN_MISTAKE,
                    "internal error (" + e.getClass().getSimpleName() + "); see the server log"));
        }
        send(ctx, in, reply);
    }

    private boolean asksForCredentials(Routes.Access access) {
        return auth.required() && (access == Routes.Access.API || (access == Routes.Access.METRICS && authMetrics));
    }

    /** 401, held back after a wrong password so that guessing is slow. */
    private void refuse(ChannelHandlerContext ctx, Incoming in, BasicAuth.Outcome outcome) {
        boolean missing = outcome == BasicAuth.Outcome.MISSING;
        Reply reply = Reply.error(new ApiException(HttpResponseStatus.UNAUTHORIZED,
                missing ? ApiCode.EMPTY_USERNAME_OR_PASSWORD : ApiCode.WRONG_USERNAME_OR_PASSWORD,
                missing ? "credentials are required (HTTP Basic)" : "wrong user name or password"));
        long delay = missing ? 0 : auth.delayMillis(in.from());
        ctx.executor().schedule(() -> {
            FullHttpResponse response = whole(reply, in.method());
            if (!in.fromDashboard()) {
                response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"sluice\", charset=\"UTF-8\"");
            }
            finish(ctx, in, ctx.writeAndFlush(response));
        }, delay, TimeUnit.MILLISECONDS);
    }

    private void send(ChannelHandlerContext ctx, Incoming in, Reply reply) {
        if (reply.writer() == null || in.method().equals(HttpMethod.HEAD)) {
            finish(ctx, in, ctx.writeAndFlush(whole(reply, in.method())));
            return;
        }
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, reply.status());
        headers(head.headers(), reply);
        HttpUtil.setTransferEncodingChunked(head, true);
        ctx.writeAndFlush(head);
        ChunkedBody body = new ChunkedBody(ctx);
        try {
            reply.writer().writeTo(body);
            body.close();
            finish(ctx, in, ctx.newSucceededFuture());
        } catch (IOException | RuntimeException e) {
            body.abandon();
            // The status went out already: cutting the connection is how the client learns the body is incomplete.
            LOG.info("HTTP {} {}: streaming the reply to {} stopped: {}", in.method(), in.uri().path(), in.from(),
                    e.toString());
            ctx.close();
        }
    }

    private static FullHttpResponse whole(Reply reply, HttpMethod method) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, reply.status(),
                method.equals(HttpMethod.HEAD) || reply.body() == null ? Unpooled.EMPTY_BUFFER
                        : Unpooled.wrappedBuffer(reply.body()));
        headers(response.headers(), reply);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body() == null ? 0 : reply.body().length);
        return response;
    }

    private static void headers(HttpHeaders headers, Reply reply) {
        headers.set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set(HttpHeaderNames.CACHE_CONTROL, reply.cacheable() ? "max-age=3600" : "no-store");
        if (reply.contentType().startsWith("text/html")) {
            headers.set("Content-Security-Policy",
                    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
                            + "frame-ancestors 'none'; base-uri 'none'");
            headers.set("X-Frame-Options", "DENY");
        }
        if (reply.fileName() != null) {
            headers.set(HttpHeaderNames.CONTENT_DISPOSITION, "attachment; filename=\"" + reply.fileName() + "\"");
        }
    }

    /** After the reply: keep the connection for the next request, or close it. */
    private static void finish(ChannelHandlerContext ctx, Incoming in, ChannelFuture written) {
        if (!in.keepAlive()) {
            written.addListener(ChannelFutureListener.CLOSE);
            return;
        }
        written.addListener(f -> {
            ctx.channel().config().setAutoRead(true);
            ctx.read();
        });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("HTTP connection from {} failed", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
