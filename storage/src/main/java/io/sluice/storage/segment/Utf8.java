package io.sluice.storage.segment;

import java.nio.ByteBuffer;

/**
 * UTF-8 length and encoding of a {@link CharSequence} straight into a buffer, so appending tags
 * and header keys allocates nothing (a single tag, the topic of a captured message, goes through
 * {@link TagCache} instead). Unpaired surrogates become '?', as
 * {@link String#getBytes} does.
 */
final class Utf8 {
    private Utf8() {
    }

    static int encodedLength(CharSequence s) {
        int bytes = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes += 1;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    static void encode(CharSequence s, ByteBuffer out) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                out.put((byte) c);
            } else if (c < 0x800) {
                out.put((byte) (0xC0 | (c >> 6)));
                out.put((byte) (0x80 | (c & 0x3F)));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                out.put((byte) (0xF0 | (cp >> 18)));
                out.put((byte) (0x80 | ((cp >> 12) & 0x3F)));
                out.put((byte) (0x80 | ((cp >> 6) & 0x3F)));
                out.put((byte) (0x80 | (cp & 0x3F)));
            } else if (Character.isSurrogate(c)) {
                out.put((byte) '?');
            } else {
                out.put((byte) (0xE0 | (c >> 12)));
                out.put((byte) (0x80 | ((c >> 6) & 0x3F)));
                out.put((byte) (0x80 | (c & 0x3F)));
            }
        }
    }
}
