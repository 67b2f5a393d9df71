package io.sluice.kafka.codec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.SendBuilder;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Writes a response frame: the int32 size, the response header (version per
 * {@link ApiKeys#responseHeaderVersion}, which is 0 for ApiVersions at every version, KIP-511) and
 * the body. The frame comes as buffers to send in order: kafka-clients' {@link SendBuilder} writes
 * the fields into one buffer and refers to record batches (a Fetch response's records) where they
 * are instead of copying them.
 */
public final class Responses {
    private Responses() {
    }

    /** The whole frame, size prefix included, as buffers to send one after the other. */
    public static ByteBuffer[] frame(int correlationId, ApiKeys key, short version, ApiMessage body) {
        return frame(correlationId, key.responseHeaderVersion(version), body, version);
    }

    /** As {@link #frame(int, ApiKeys, short, ApiMessage)}, with the header version given. */
    public static ByteBuffer[] frame(int correlationId, short headerVersion, ApiMessage body, short version) {
        Send send = SendBuilder.buildResponseSend(new ResponseHeader(correlationId, headerVersion), body, version);
        Collector collector = new Collector();
        try {
            while (!send.completed()) {
                send.writeTo(collector);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("collecting a response's buffers cannot fail", e);
        }
        return collector.buffers.toArray(new ByteBuffer[0]);
    }

    /** A channel that keeps the buffers written to it (read-only views, no copy) instead of sending them. */
    private static final class Collector implements TransferableChannel {
        final List<ByteBuffer> buffers = new ArrayList<>(3);

        @Override
        public int write(ByteBuffer source) {
            int bytes = source.remaining();
            buffers.add(source.slice());
            source.position(source.limit());
            return bytes;
        }

        @Override
        public long write(ByteBuffer[] sources, int offset, int length) {
            long bytes = 0;
            for (int i = offset; i < offset + length; i++) {
                bytes += write(sources[i]);
            }
            return bytes;
        }

        @Override
        public long write(ByteBuffer[] sources) {
            return write(sources, 0, sources.length);
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) {
            throw new UnsupportedOperationException("responses are built from memory, not files");
        }

        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
