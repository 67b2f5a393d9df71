package io.sluice.storage.segment;

import java.nio.charset.StandardCharsets;

/**
 * The UTF-8 bytes of recently appended single tags. A capture log appends the same few topics,
 * as the same String instances, millions of times a second; encoding each one once saves the
 * per-record scans of its characters (its length for the size check, again for the record's
 * length, again and once more to encode it) that took a third of the ring thread's log append.
 *
 * <p>A direct-mapped table of {@value #SLOTS} slots keyed by the String's (cached) hash: a hit is
 * an identity check, an equal but new instance costs one comparison, and only a topic not seen
 * lately is encoded (and allocated). Owned by the log's writer, like the batch builder.
 */
final class TagCache {
    static final int SLOTS = 64;

    private final String[] tags = new String[SLOTS];
    private final byte[][] utf8 = new byte[SLOTS][];

    /** The tag's UTF-8 bytes (unpaired surrogates become '?', as {@link Utf8} writes them); never change them. */
    byte[] utf8(CharSequence tag) {
        if (!(tag instanceof String text)) {
            return encode(tag);
        }
        int slot = text.hashCode() & (SLOTS - 1);
        String seen = tags[slot];
        if (seen != text && !text.equals(seen)) {
            utf8[slot] = text.getBytes(StandardCharsets.UTF_8);
            tags[slot] = text;
        }
        return utf8[slot];
    }

    private static byte[] encode(CharSequence tag) {
        java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(Utf8.encodedLength(tag));
        Utf8.encode(tag, bytes);
        return bytes.array();
    }
}
