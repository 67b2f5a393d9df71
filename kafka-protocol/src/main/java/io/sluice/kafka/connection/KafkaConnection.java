package io.sluice.kafka.connection;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.sluice.kafka.api.KafkaApis;
import io.sluice.kafka.api.Session;
import io.sluice.logging.RateLimitedLog;

/**
 * One Kafka client connection, after the frame decoder: requests are answered one at a time and in
 * order, as Kafka's network layer does (it mutes a connection while one of its requests is in
 * process), which keeps responses in request order without bookkeeping.
 *
 * <p>Each frame is copied once out of Netty's buffer into a byte array the request owns, and
 * handled on a request thread; the event loop only queues frames and writes responses. Beyond
 * {@value #MAX_QUEUED} queued frames the connection stops reading until it catches up. A frame
 * that is too long or does not parse closes this connection only, with a log line (rate-limited).
 *
 * <p>Threading: the queue and the busy flag belong to the event loop; request threads hand
 * results back to it.
 */
public final class KafkaConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaConnection.class);
    private static final RateLimitedLog CLOSES = new RateLimitedLog(LOG, "kafka listener", 10, Duration.ofSeconds(10));
    static final int MAX_QUEUED = 16;

    private final KafkaApis apis;
    private final Executor requests;
    private final ArrayDeque<byte[]> queued = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private Session session;
    private boolean busy;
    private boolean closing;

    public KafkaConnection(KafkaApis apis, Executor requests) {
        this.apis = apis;
        this.requests = requests;
    }

    @Override
    public void channelActive(ChannelHandlerContext context) throws Exception {
        this.ctx = context;
        this.session = new Session(context.channel().remoteAddress());
        super.channelActive(context);
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        try {
            if (!closing) {
                queued.add(ByteBufUtil.getBytes(frame));
            }
        } finally {
            frame.release();
        }
        if (queued.size() >= MAX_QUEUED) {
            context.channel().config().setAutoRead(false);
        }
        next();
    }

    /** Starts the next queued request if none is in process (event loop). */
    private void next() {
        if (busy || closing) {
            return;
        }
        byte[] frame = queued.poll();
        if (frame == null) {
            ctx.channel().config().setAutoRead(true);
            return;
        }
        busy = true;
        try {
            requests.execute(() -> process(frame));
        } catch (RejectedExecutionException e) {
            close("the server is shutting down", null);
        }
    }

    /** On a request thread: handles the frame and hands the reply to the event loop. */
    private void process(byte[] frame) {
        CompletableFuture<KafkaApis.Reply> reply;
        try {
            reply = apis.handle(session, frame);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((answer, error) -> {
            try {
                ctx.executor().execute(() -> replied(answer, error));
            } catch (RejectedExecutionException e) {
                // The event loop is shutting down: the answer is dropped, and a fetch's buffers with it.
                if (answer != null) {
                    answer.sent().run();
                }
            }
        });
    }

    private void replied(KafkaApis.Reply reply, Throwable error) {
        busy = false;
        if (error != null) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            close(cause instanceof KafkaApis.Unanswerable ? cause.getMessage() : "request failed: " + cause, cause);
            return;
        }
        if (reply.frame() != null && ctx.channel().isActive()) {
            ctx.writeAndFlush(direct(reply.frame())).addListener(written -> reply.sent().run());
        } else {
            reply.sent().run();
        }
        if (reply.close()) {
            closing = true;
            ctx.channel().close();
            return;
        }
        next();
    }

    /**
     * The frame as one buffer the transport writes without copying it: parts in direct memory (a
     * fetch's record batches) are wrapped, the small heap parts (headers and fields) copied into
     * direct memory. With any heap part left, the transport would copy the whole frame.
     */
    private ByteBuf direct(ByteBuffer[] frame) {
        CompositeByteBuf composite = ctx.alloc().compositeDirectBuffer(Math.max(frame.length, 2));
        for (ByteBuffer part : frame) {
            composite.addComponent(true, part.isDirect() ? Unpooled.wrappedBuffer(part)
                    : ctx.alloc().directBuffer(part.remaining()).writeBytes(part));
        }
        return composite;
    }

    private void close(String why, Throwable cause) {
        closing = true;
        queued.clear();
        CLOSES.warn("closing the Kafka connection from " + session.address() + ": " + why);
        if (cause != null && !(cause instanceof KafkaApis.Unanswerable) && LOG.isDebugEnabled()) {
            LOG.debug("cause", cause);
        }
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        if (cause instanceof TooLongFrameException || (cause.getCause() instanceof TooLongFrameException)) {
            close("a request larger than max_request_size: " + cause.getMessage(), null);
        } else {
            close("connection error: " + cause, cause);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) throws Exception {
        closing = true;
        queued.clear();
        super.channelInactive(context);
    }
}
