package io.sluice.query.wire;

import io.sluice.stream.CommandException;
import java.nio.charset.StandardCharsets;

/**
 * The error frame of the query channel: one line of printable ASCII, no terminator.
 *
 * <pre>
 *   0     3  4          4+n  5+n
 *  +-----+--+-----------+--+------------------------+
 *  | ERR |SP| code [n]  |SP| reason [m]             |
 *  +-----+--+-----------+--+------------------------+
 *   "ERR"  0x20  A-Z 0-9 _   0x20  bytes 0x20..0x7E, m >= 1, at most {@value #MAX_REASON} bytes
 * </pre>
 *
 * In the reason, a character outside printable ASCII is written <code>&#92;uXXXX</code> (UTF-16,
 * as in Java source) and a backslash as two; {@link #reason} turns them back, so a reason that
 * quotes a non-ASCII command reads as the command did.
 *
 * It is always the last frame before the EOF frame. A client recognises it by its first four
 * bytes {@code 45 52 52 20}: the server never sends a data frame that starts with them (see
 * {@link #AMBIGUOUS_DATA}), and never one equal to the EOF frame.
 *
 * <p>Codes: the command codes of {@link CommandException} ({@code BAD_COMMAND}, {@code BAD_VERB},
 * {@code BAD_KEY}, {@code BAD_RANGE}, {@code BAD_COLUMNS}, and any a plugin adds) plus the
 * channel's own below.
 */
public final class ErrFrame {

    /** The first four bytes of every error frame, {@code "ERR "}. */
    public static final byte[] PREFIX = {'E', 'R', 'R', ' '};
    /** Offset of the code. */
    public static final int CODE_OFFSET = PREFIX.length;
    /** Longest reason, in bytes; a longer one is cut and ends in {@code ...}. */
    public static final int MAX_REASON = 1024;

    /** More than {@code limit_frequency} queries in the current 5 s window. */
    public static final String RATE_LIMITED = "RATE_LIMITED";
    /** Reading the data failed (a damaged or vanished file, a plugin failure); the reply so far is incomplete. */
    public static final String READ_FAILED = "READ_FAILED";
    /** A {@code sync} reply would exceed {@code max_sync_bytes}; ask again with {@code async}. */
    public static final String TOO_LARGE = "TOO_LARGE";
    /** The exchange is closed or the server is shutting down. */
    public static final String UNAVAILABLE = "UNAVAILABLE";
    /**
     * A data frame would have started with {@code "ERR "} or equalled the EOF frame, so a client
     * could not tell it apart (possible only with a column list that does not start with a key,
     * e.g. RAW's {@code -topic} with a 17,746-byte topic starting with {@code "R "}).
     */
    public static final String AMBIGUOUS_DATA = "AMBIGUOUS_DATA";

    private ErrFrame() {
    }

    /** The frame for a code and a reason; the reason is made printable ASCII and cut to {@link #MAX_REASON}. */
    public static byte[] encode(String code, String reason) {
        if (code == null || code.isEmpty() || !code.chars().allMatch(ErrFrame::codeChar)) {
            throw new IllegalArgumentException("error code must be upper-case ASCII letters, digits or '_', was " + code);
        }
        String text = printable(reason == null || reason.isEmpty() ? "-" : reason);
        if (text.length() > MAX_REASON) {
            text = text.substring(0, MAX_REASON - 3) + "...";
        }
        return ("ERR " + code + " " + text).getBytes(StandardCharsets.US_ASCII);
    }

    /** Whether a received frame is an error frame. */
    public static boolean isErr(byte[] frame) {
        return startsWithPrefix(frame, 0, frame.length);
    }

    /** Whether {@code length} bytes at {@code offset} start like an error frame. */
    public static boolean startsWithPrefix(byte[] bytes, int offset, int length) {
        if (length < PREFIX.length) {
            return false;
        }
        for (int i = 0; i < PREFIX.length; i++) {
            if (bytes[offset + i] != PREFIX[i]) {
                return false;
            }
        }
        return true;
    }

    /** The code of an error frame. */
    public static String code(byte[] frame) {
        String text = new String(frame, StandardCharsets.US_ASCII);
        int space = text.indexOf(' ', CODE_OFFSET);
        return space < 0 ? text.substring(CODE_OFFSET) : text.substring(CODE_OFFSET, space);
    }

    /** The reason of an error frame, its escapes undone (empty if it has none). */
    public static String reason(byte[] frame) {
        String text = new String(frame, StandardCharsets.US_ASCII);
        int space = text.indexOf(' ', CODE_OFFSET);
        return space < 0 ? "" : unescape(text.substring(space + 1));
    }

    /** Undoes {@link #printable}; anything that is not one of its escapes stays as it is. */
    static String unescape(String text) {
        if (text.indexOf('\\') < 0) {
            return text;
        }
        StringBuilder sb = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == '\\') {
                sb.append('\\');
                i += 2;
            } else if (c == '\\' && i + 6 <= text.length() && text.charAt(i + 1) == 'u' && isHex(text, i + 2, i + 6)) {
                sb.append((char) Integer.parseInt(text, i + 2, i + 6, 16));
                i += 6;
            } else {
                sb.append(c);
                i++;
            }
        }
        return sb.toString();
    }

    private static boolean isHex(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            if (Character.digit(text.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean codeChar(int c) {
        return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }

    /** Printable ASCII: other characters become <code>&#92;uXXXX</code> and a backslash two, so the frame stays one ASCII line. */
    static String printable(String text) {
        StringBuilder sb = new StringBuilder(Math.min(text.length(), MAX_REASON + 8));
        for (int i = 0; i < text.length() && sb.length() <= MAX_REASON; i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                sb.append("\\\\");
            } else if (c >= 0x20 && c < 0x7F) {
                sb.append(c);
            } else {
                sb.append(String.format("\\u%04x", (int) c));
            }
        }
        return sb.toString();
    }
}
