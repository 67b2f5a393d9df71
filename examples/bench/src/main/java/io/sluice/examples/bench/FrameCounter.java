package io.sluice.examples.bench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Splits the inbound byte stream into MQTT packets without decoding them, counting PUBLISHes
 * received, acknowledging QoS 1 ones, and reporting CONNACK, SUBACK and PUBACK to a listener.
 * Parsing only fixed headers keeps the generator's CPU cost per message small.
 */
final class FrameCounter extends ByteToMessageDecoder {
    /** What the client learns from the broker. */
    interface Listener {
        void connected();

        void subscribed();

        void published(int count);

        void acknowledged(int count);
    }

    private final Listener listener;

    FrameCounter(Listener listener) {
        this.listener = listener;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int publishes = 0;
        int acks = 0;
        boolean wroteAcks = false;
        while (true) {
            int start = in.readerIndex();
            if (in.readableBytes() < 2) {
                break;
            }
            int first = in.getUnsignedByte(start);
            int length = 0;
            int shift = 0;
            int pos = start + 1;
            boolean complete = false;
            while (pos < in.writerIndex()) {
                int digit = in.getUnsignedByte(pos++);
                length |= (digit & 0x7F) << shift;
                shift += 7;
                if ((digit & 0x80) == 0) {
                    complete = true;
                    break;
                }
            }
            if (!complete || in.writerIndex() - pos < length) {
                break;
            }
            int type = first >> 4;
            if (type == 3) {
                publishes++;
                int qos = (first >> 1) & 3;
                if (qos == 1) {
                    int topicLength = in.getUnsignedShort(pos);
                    int packetId = in.getUnsignedShort(pos + 2 + topicLength);
                    ctx.write(Packets.pubAck(packetId), ctx.voidPromise());
                    wroteAcks = true;
                }
            } else if (type == 4) {
                acks++;
            } else if (type == 2) {
                listener.connected();
            } else if (type == 9) {
                listener.subscribed();
            }
            in.readerIndex(pos + length);
        }
        if (wroteAcks) {
            ctx.flush();
        }
        if (publishes > 0) {
            listener.published(publishes);
        }
        if (acks > 0) {
            listener.acknowledged(acks);
        }
    }
}
