package io.sluice.kafka.codec;

import java.nio.ByteBuffer;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Writes a response frame: the int32 size, the response header (version per
 * {@link ApiKeys#responseHeaderVersion}, which is 0 for ApiVersions at every version, KIP-511) and
 * the body, into one buffer allocated at its exact size.
 */
public final class Responses {
    private Responses() {
    }

    /** The whole frame, size prefix included, ready to send. */
    public static ByteBuffer frame(int correlationId, ApiKeys key, short version, ApiMessage body) {
        return frame(correlationId, key.responseHeaderVersion(version), body, version);
    }

    /** As {@link #frame(int, ApiKeys, short, ApiMessage)}, with the header version given. */
    public static ByteBuffer frame(int correlationId, short headerVersion, ApiMessage body, short version) {
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int headerSize = header.size(cache, headerVersion);
        int bodySize = body.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(Integer.BYTES + headerSize + bodySize);
        buffer.putInt(headerSize + bodySize);
        ByteBufferAccessor out = new ByteBufferAccessor(buffer);
        header.write(out, cache, headerVersion);
        body.write(out, cache, version);
        return buffer.flip();
    }
}
