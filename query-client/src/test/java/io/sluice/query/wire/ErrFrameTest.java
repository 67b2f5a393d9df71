package io.sluice.query.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ErrFrameTest {

    @Test
    void anErrFrameIsOneAsciiLineOfCodeAndReason() {
        byte[] frame = ErrFrame.encode("BAD_RANGE", "end 1 is before start 9");
        assertEquals("ERR BAD_RANGE end 1 is before start 9", new String(frame, StandardCharsets.US_ASCII));
        assertTrue(ErrFrame.isErr(frame));
        assertEquals("BAD_RANGE", ErrFrame.code(frame));
        assertEquals("end 1 is before start 9", ErrFrame.reason(frame));
    }

    @Test
    void reasonsAreEscapedToPrintableAsciiAndCut() {
        byte[] frame = ErrFrame.encode("X", "caf\u00e9\nnext");
        assertEquals("ERR X caf\\u00e9\\u000anext", new String(frame, StandardCharsets.US_ASCII));
        byte[] longOne = ErrFrame.encode("X", "y".repeat(5000));
        assertEquals("ERR X ".length() + ErrFrame.MAX_REASON, longOne.length);
        assertTrue(new String(longOne, StandardCharsets.US_ASCII).endsWith("..."));
        assertEquals("ERR X -", new String(ErrFrame.encode("X", ""), StandardCharsets.US_ASCII));
    }

    @Test
    void codesAreUpperCaseTokensAndDataIsNotAnErr() {
        assertThrows(IllegalArgumentException.class, () -> ErrFrame.encode("bad code", "r"));
        assertFalse(ErrFrame.isErr(new byte[] {0, 0, 1, (byte) 0x8b, 'E', 'R', 'R', ' '}));
        assertFalse(ErrFrame.isErr("ERR".getBytes(StandardCharsets.US_ASCII)));
    }
}
