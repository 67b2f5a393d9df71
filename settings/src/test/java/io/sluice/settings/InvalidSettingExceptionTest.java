package io.sluice.settings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class InvalidSettingExceptionTest {

    @Test
    void theMessageIsTheKeyAndTheProblem() {
        InvalidSettingException e = new InvalidSettingException("ringbus.cap", "must be 1 to 100000000 messages, was 0");
        assertEquals("ringbus.cap: must be 1 to 100000000 messages, was 0", e.getMessage());
        assertEquals("ringbus.cap", e.key());
        assertEquals("must be 1 to 100000000 messages, was 0", e.problem());
    }

    @Test
    void underABlockTheKeyBecomesAbsoluteAndKeepsItsCauseAndOrigin() {
        IOException cause = new IOException("read-only file system");
        InvalidSettingException relative = new InvalidSettingException("parquet.dir", "cannot create directory /data", cause);
        InvalidSettingException absolute = relative.under("exchange_client.a.exchange");
        assertEquals("exchange_client.a.exchange.parquet.dir", absolute.key());
        assertEquals("exchange_client.a.exchange.parquet.dir: cannot create directory /data", absolute.getMessage());
        assertSame(cause, absolute.getCause());
        assertArrayEquals(relative.getStackTrace(), absolute.getStackTrace());
        assertSame(relative, relative.under(""), "the top level adds nothing");
    }

    @Test
    void aKeyIsRequired() {
        assertThrows(NullPointerException.class, () -> new InvalidSettingException(null, "x"));
        assertThrows(IllegalArgumentException.class, () -> new InvalidSettingException("", "x"));
    }
}
