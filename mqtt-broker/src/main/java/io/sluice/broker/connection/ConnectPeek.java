package io.sluice.broker.connection;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * Reads, just before Netty's decoder, the two things in a CONNECT that the decoder gets wrong,
 * and marks the channel with them. It holds back the first bytes of the connection until it has
 * seen what it needs (or knows the packet is none of its business), then removes itself.
 * <ul>
 * <li>The bridge bit of MQTT 3.1 / 3.1.1 bridges (Mosquitto's {@code try_private}, NanoMQ's
 * {@code no_local_v4}, Sluice's own bridges): a protocol level of {@code 0x83} or {@code 0x84}
 * instead of 3 or 4. The decoder refuses such a level, so the bit is cleared in the bytes and the
 * channel marked with {@link #BRIDGE}; the connection then treats every subscription of that
 * client as No Local with Retain As Published, so two brokers bridged both ways over MQTT 3.1.1
 * do not send each other's messages back.</li>
 * <li>A Will Topic of 32,768 bytes or more, which MQTT allows (up to 65,535) but the decoder
 * skips as if its length were a signed 16-bit number, leaving the topic null. Such a topic is
 * read here into {@link #LONG_WILL_TOPIC}.</li>
 * </ul>
 * Encoded CONNECT:
 * <pre>
 *   0x10 | remaining length (1-4 bytes) | u16 name length | "MQTT" or "MQIsdp" | level | flags | u16 keepalive
 *   | [v5: properties] | client id string | [will flag: [v5: will properties] | will topic string | ...] ...
 * </pre>
 */
public final class ConnectPeek extends ChannelInboundHandlerAdapter {
    /** Set on channels whose CONNECT carried the bridge bit. */
    static final AttributeKey<Boolean> BRIDGE = AttributeKey.valueOf("sluice.mqtt.bridge");
    /** The Will Topic of a CONNECT whose topic the decoder could not read (32,768 bytes or more). */
    static final AttributeKey<String> LONG_WILL_TOPIC = AttributeKey.valueOf("sluice.mqtt.long-will-topic");
    private static final int BIT = 0x80;
    private static final int WILL_FLAG = 0x04;
    /** The longest Will Topic the decoder reads itself. */
    private static final int DECODER_TOPIC_LIMIT = 32_767;

    private final int maxPacketSize;
    private CompositeByteBuf pending;

    /** One per channel: it holds the first bytes of its connection; a longer CONNECT is the decoder's to refuse. */
    public ConnectPeek(int maxPacketSize) {
        this.maxPacketSize = maxPacketSize;
    }

    /** Whether the client of {@code channel} connected as a bridge. */
    static boolean isBridge(Channel channel) {
        return Boolean.TRUE.equals(channel.attr(BRIDGE).get());
    }

    /** The Will Topic the decoder left null because of its length, or null. */
    static String longWillTopic(Channel channel) {
        return channel.attr(LONG_WILL_TOPIC).get();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf bytes)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf buf = bytes; // usually the first read holds all it needs: no composite buffer then
        if (pending != null) {
            pending.addComponent(true, bytes);
            buf = pending;
        }
        int at = levelIndex(buf);
        int topicAt = at >= 0 ? longWillTopicIndex(buf, at) : at;
        if (topicAt == -1) { // the level byte, or a will topic, has not all arrived yet
            if (pending == null) {
                pending = ctx.alloc().compositeBuffer();
                pending.addComponent(true, bytes);
            }
            return;
        }
        if (at >= 0) {
            clearBridgeBit(ctx.channel(), buf, at);
        }
        if (topicAt >= 0) {
            readLongWillTopic(ctx.channel(), buf, topicAt);
        }
        pending = null;
        ctx.pipeline().remove(this);
        ctx.fireChannelRead(buf);
    }

    private static void clearBridgeBit(Channel channel, ByteBuf buf, int at) {
        int level = buf.getUnsignedByte(at);
        if (level == (3 | BIT) || level == (4 | BIT)) {
            buf.setByte(at, level & ~BIT);
            channel.attr(BRIDGE).set(Boolean.TRUE);
        }
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
        int i = varIntEnd(buf, start + 1);
        if (i < 0) {
            return i;
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

    /**
     * Where a Will Topic too long for the decoder starts (its u16 length): the index once all its
     * bytes are here, -1 if more bytes are needed, -2 if there is no will, the topic is one the
     * decoder reads itself, or the packet is not one to look into.
     */
    int longWillTopicIndex(ByteBuf buf, int levelAt) {
        int packetEnd = packetEnd(buf);
        if (packetEnd < 0 || packetEnd - buf.readerIndex() > maxPacketSize) {
            return packetEnd == -1 ? -1 : -2; // too long or no valid length: the decoder refuses it
        }
        int flagsAt = levelAt + 1;
        if (flagsAt >= buf.writerIndex()) {
            return -1;
        }
        if ((buf.getUnsignedByte(flagsAt) & WILL_FLAG) == 0) {
            return -2;
        }
        boolean v5 = (buf.getUnsignedByte(levelAt) & ~BIT) == 5;
        int i = flagsAt + 3; // flags, keepalive
        if (v5) {
            i = skipProperties(buf, i);
        }
        i = skipString(buf, i); // client id
        if (v5) {
            i = skipProperties(buf, i);
        }
        if (i < 0 || i + 2 > buf.writerIndex()) {
            return i == -2 ? -2 : -1;
        }
        int end = i + 2 + buf.getUnsignedShort(i);
        if (buf.getUnsignedShort(i) <= DECODER_TOPIC_LIMIT || end > packetEnd) {
            return -2;
        }
        return end <= buf.writerIndex() ? i : -1;
    }

    /** Decodes the topic strictly, as the decoder reads strings; one that is not valid UTF-8 stays unset (malformed). */
    private static void readLongWillTopic(Channel channel, ByteBuf buf, int topicAt) {
        ByteBuffer topic = buf.nioBuffer(topicAt + 2, buf.getUnsignedShort(topicAt));
        try {
            String decoded = StandardCharsets.UTF_8.newDecoder().decode(topic).toString();
            if (decoded.indexOf('\u0000') < 0) {
                channel.attr(LONG_WILL_TOPIC).set(decoded);
            }
        } catch (CharacterCodingException e) {
            // left unset: the connection refuses the CONNECT as malformed, as the decoder would
        }
    }

    /** The index just past the packet, from its remaining length; -1 if not all here, -2 if invalid. */
    private static int packetEnd(ByteBuf buf) {
        int start = buf.readerIndex() + 1;
        int end = varIntEnd(buf, start);
        return end < 0 ? end : end + varInt(buf, start);
    }

    private static int skipProperties(ByteBuf buf, int at) {
        if (at < 0) {
            return at;
        }
        int end = varIntEnd(buf, at);
        return end < 0 ? end : end + varInt(buf, at);
    }

    private static int skipString(ByteBuf buf, int at) {
        if (at < 0) {
            return at;
        }
        if (at + 2 > buf.writerIndex()) {
            return -1;
        }
        return at + 2 + buf.getUnsignedShort(at);
    }

    /** Where a variable byte integer starting at {@code at} ends; -1 if not all here, -2 if longer than 4 bytes. */
    private static int varIntEnd(ByteBuf buf, int at) {
        int i = at;
        for (int k = 0; k < 4; k++) {
            if (i >= buf.writerIndex()) {
                return -1;
            }
            if ((buf.getByte(i++) & 0x80) == 0) {
                return i;
            }
        }
        return -2;
    }

    /** The value of a complete variable byte integer at {@code at}. */
    private static int varInt(ByteBuf buf, int at) {
        int value = 0;
        int shift = 0;
        int i = at;
        int digit;
        do {
            digit = buf.getByte(i++);
            value |= (digit & 0x7F) << shift;
            shift += 7;
        } while ((digit & 0x80) != 0);
        return value;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (pending != null) {
            pending.release();
            pending = null;
        }
    }
}
