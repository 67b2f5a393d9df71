package io.sluice.bridges.mqtt;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Sets the bridge bit in the CONNECT of an MQTT 3.1 / 3.1.1 bridge: protocol level {@code 0x83} /
 * {@code 0x84} instead of 3 / 4, as Mosquitto's {@code try_private} and NanoMQ's {@code no_local_v4}
 * do. A broker that knows the bit treats the connection as a bridge: it does not send back what the
 * bridge published (loop safety where MQTT 5's No Local is not available) and keeps RETAIN as
 * published. Netty's encoder refuses a level it does not know, so the bit is set in the encoded
 * bytes: the first buffer written is the CONNECT, laid out as
 * <pre>
 *   0x10 | remaining length (1-4 bytes, 7 bits each) | u16 name length | name ("MQTT", "MQIsdp") | level
 * </pre>
 * This handler sits between the encoder and the socket (or TLS) and removes itself once done.
 */
final class BridgeBit extends ChannelOutboundHandlerAdapter {
    static final int BIT = 0x80;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof ByteBuf connect && connect.readableBytes() > 2 && connect.getByte(connect.readerIndex()) == 0x10) {
            int at = levelIndex(connect);
            if (at >= 0) {
                connect.setByte(at, connect.getByte(at) | BIT);
            }
            ctx.pipeline().remove(this);
        }
        super.write(ctx, msg, promise);
    }

    /** Where the protocol level byte of the encoded CONNECT in {@code buf} is, or -1. */
    static int levelIndex(ByteBuf buf) {
        int i = buf.readerIndex() + 1;
        int limit = buf.writerIndex();
        for (int k = 0; k < 4 && i < limit; k++) {
            if ((buf.getByte(i++) & 0x80) == 0) {
                break;
            }
        }
        if (i + 2 > limit) {
            return -1;
        }
        int nameLength = buf.getUnsignedShort(i);
        int at = i + 2 + nameLength;
        return at < limit ? at : -1;
    }
}
