package io.sluice.query.wire;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/** The text of a query request: UTF-8, and bytes that are not show as {@code \xNN}, so a refusal can quote it. */
public final class CommandText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private CommandText() {
    }

    /** Decodes {@code request} as UTF-8; if it is not valid UTF-8, each byte outside ASCII appears as {@code \xNN}. */
    public static String decode(byte[] request) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(request)).toString();
        } catch (CharacterCodingException e) {
            StringBuilder sb = new StringBuilder(request.length + 16);
            for (byte b : request) {
                if (b >= 0) {
                    sb.append((char) b);
                } else {
                    sb.append("\\x").append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
                }
            }
            return sb.toString();
        }
    }
}
