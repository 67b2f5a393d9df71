package io.sluice.stream;

import java.nio.ByteBuffer;

/**
 * Where {@link StreamCodec#decode} writes decoded records, one after another. The caller (the
 * query channel) owns the memory and cuts frames at record boundaries, so a reply of any size is
 * streamed in bounded frames and never split inside a record.
 *
 * <p>A decoder calls {@link #claim} once per record with the record's exact length, then writes
 * exactly that many bytes with relative puts. The buffer is valid until the next claim. The sink
 * may throw an unchecked exception (for example when the client went away) to stop decoding;
 * it propagates out of decode.
 */
@FunctionalInterface
public interface DecodeSink {

    /**
     * Space for one record.
     *
     * @param length the record's length in bytes, at least 1
     * @return a big-endian buffer positioned at the record's first byte with at least
     *         {@code length} bytes remaining
     */
    ByteBuffer claim(int length);
}
