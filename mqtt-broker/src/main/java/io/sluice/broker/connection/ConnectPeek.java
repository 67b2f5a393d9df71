package io.sluice.broker.connection;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

/**
 * Accepts the bridge bit of MQTT 3.1 / 3.1.1 bridges (Mosquitto's {@code try_private}, NanoMQ's
 * {@code no_local_v4}, Sluice's own bridges): a CONNECT whose protocol level is {@code 0x83} or
 * {@code 0x84} instead of 3 or 4. Netty's decoder refuses such a level, so this handler, just before
 * the decoder, clears the bit in the bytes of the first packet and marks the channel with
 * {@link #BRIDGE}; the connection then treats every subscription of that client as No Local with
 * Retain As Published, so two brokers bridged both ways over MQTT 3.1.1 do not send each other's
 * messages back. Encoded CONNECT:
 * <pre>
 *   0x10 | remaining length (1-4 bytes) | u16 name length | "MQTT" or "MQIsdp" | level | ...
 * </pre>
 * It holds back the first bytes until the level byte has arrived (at most 13 bytes), then removes itself.
 */
public final class BridgeBit extends ChannelInboundHandlerAdapter {
    /** Set on channels whose CONNECT carried the bridge bit. */
    static final AttributeKey<Boolean> BRIDGE = AttributeKey.valueOf("sluice.mqtt.bridge");
    private static final int BIT = 0x80;

    private CompositeByteBuf pending;

    /** One per channel: it holds the first bytes of its connection. */
    public BridgeBit() {
    }

    /** Whether the client of {@code channel} connected as a bridge. */
    static boolean isBridge(Channel channel) {
        return Boolean.TRUE.equals(channel.attr(BRIDGE).get());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf bytes)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (pending == null) {
            pending = ctx.alloc().compositeBuffer();
        }
        pending.addComponent(true, bytes);
        int at = levelIndex(pending);
        if (at == -1) {
            return; // the level byte has not arrived yet
        }
        if (at >= 0) {
            int level = pending.getUnsignedByte(at);
            if (level == (3 | BIT) || level == (4 | BIT)) {
                pending.setByte(at, level & ~BIT);
                ctx.channel().attr(BRIDGE).set(Boolean.TRUE);
            }
        }
        ByteBuf first = pending;
        pending = null;
        ctx.pipeline().remove(this);
        ctx.fireChannelRead(first);
    }

    /** Where the level byte is: its index, -1 if more bytes are needed, -2 if this is no CONNECT to look into. */
    static int levelIndex(ByteBuf buf) {
        int start = buf.readerIndex();
        int limit = buf.writerIndex();
        if (limit == start) {
            return -1;
        }
        if (buf.getUnsignedByte(start) != 0x10) {
            return -2;
        }
        int i = start + 1;
        for (int k = 0; ; k++) {
            if (i >= limit) {
                return -1;
            }
            if ((buf.getByte(i++) & 0x80) == 0) {
                break;
            }
            if (k == 3) {
                return -2;
            }
        }
        if (i + 2 > limit) {
            return -1;
        }
        int nameLength = buf.getUnsignedShort(i);
        if (nameLength > 6) {
            return -2;
        }
        int at = i + 2 + nameLength;
        return at < limit ? at : -1;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (pending != null) {
            pending.release();
            pending = null;
        }
    }
}
