package io.sluice.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;

/**
 * The body of a streamed reply as an {@link OutputStream}: bytes are gathered into chunks of
 * {@link #CHUNK_BYTES} and each chunk is written to the connection before the next is gathered,
 * so a slow reader slows the writer down instead of filling memory. Used by one worker thread.
 */
final class ChunkedBody extends OutputStream {
    static final int CHUNK_BYTES = 64 * 1024;
    /** A client that reads nothing for this long is given up on. */
    private static final long WRITE_TIMEOUT_SECONDS = 60;

    private final ChannelHandlerContext ctx;
    private ByteBuf chunk;
    private boolean closed;

    ChunkedBody(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void write(int b) throws IOException {
        room(1).writeByte(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            ByteBuf buf = room(1);
            int n = Math.min(len, buf.writableBytes());
            buf.writeBytes(b, off, n);
            off += n;
            len -= n;
        }
    }

    private ByteBuf room(int bytes) throws IOException {
        if (closed) {
            throw new IOException("the reply was finished already");
        }
        if (chunk != null && chunk.writableBytes() < bytes) {
            send();
        }
        if (chunk == null) {
            chunk = ctx.alloc().buffer(CHUNK_BYTES, CHUNK_BYTES);
        }
        return chunk;
    }

    private void send() throws IOException {
        ByteBuf full = chunk;
        chunk = null;
        await(ctx.writeAndFlush(new DefaultHttpContent(full)));
    }

    @Override
    public void flush() throws IOException {
        if (chunk != null && chunk.isReadable()) {
            send();
        }
    }

    /** Sends what is left and ends the reply. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        flush();
        if (chunk != null) {
            chunk.release();
            chunk = null;
        }
        closed = true;
        await(ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT));
    }

    /** Drops what was gathered and not sent, after a failure. */
    void abandon() {
        closed = true;
        if (chunk != null) {
            chunk.release();
            chunk = null;
        }
    }

    private static void await(ChannelFuture future) throws IOException {
        try {
            if (!future.await(WRITE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IOException("the client read nothing for " + WRITE_TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while sending a reply", e);
        }
        if (!future.isSuccess()) {
            throw new IOException("sending the reply failed: " + future.cause(), future.cause());
        }
    }
}
