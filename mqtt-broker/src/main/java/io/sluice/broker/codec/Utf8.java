package io.sluice.broker.codec;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Well-formedness of UTF-8 payloads whose Payload Format Indicator says they are text (MQTT 5 §3.3.2.3.2). */
public final class Utf8 {
    private Utf8() {
    }

    /** Whether {@code bytes} are well-formed UTF-8 (no overlong forms, no surrogates). */
    public static boolean isValid(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
