package io.sluice.broker.connection;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * Closes a connection after its last packet (a DISCONNECT or a refusing CONNACK with a reason
 * code) without destroying that packet. Closing a socket while the client's data is still
 * arriving makes the kernel answer with a reset, and a client that is still writing may then
 * never read the reason code. So: send the last packet, shut down output (the client reads it,
 * then end of stream), read and discard whatever the client still sends until it closes or for
 * at most {@link #LINGER_MILLIS}, then close.
 */
final class LingeringClose {
    /** Long enough for a client to read the last packet and close; short enough to free the connection soon. */
    static final long LINGER_MILLIS = 2_000;

    private LingeringClose() {
    }

    /** Starts the lingering close once {@code lastWrite} (written and flushed) completes. */
    static void after(ChannelFuture lastWrite) {
        lastWrite.addListener(written -> linger(lastWrite.channel(), written.isSuccess()));
    }

    private static void linger(Channel channel, boolean written) {
        if (!written || !channel.isActive() || !(channel instanceof DuplexChannel duplex)) {
            channel.close();
            return;
        }
        ScheduledFuture<?> deadline = channel.eventLoop().schedule(() -> channel.close(), LINGER_MILLIS,
                TimeUnit.MILLISECONDS);
        channel.closeFuture().addListener(closed -> deadline.cancel(false));
        duplex.shutdownOutput().addListener(shut -> {
            if (!shut.isSuccess()) {
                channel.close();
            }
        });
        channel.config().setAutoRead(true); // a throttled client may have had its reads paused
    }
}
