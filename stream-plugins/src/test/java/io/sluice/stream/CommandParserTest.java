package io.sluice.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CommandParserTest {

    private static String codeOf(String command) {
        return assertThrows(CommandException.class, () -> CommandParser.parse(command)).code();
    }

    @Test
    void syncAndAsyncWithInclusiveKeys() throws CommandException {
        CommandParser.Parts sync = CommandParser.parse("sync-1700000000000-1700000005000");
        assertTrue(sync.sync());
        assertEquals(1700000000000L, sync.start());
        assertEquals(1700000005000L, sync.end());
        assertNull(sync.columns());
        CommandParser.Parts async = CommandParser.parse("async-0-9223372036854775807-ts,data");
        assertFalse(async.sync());
        assertEquals(Long.MAX_VALUE, async.end());
        assertEquals("ts,data", async.columns());
    }

    @Test
    void trailingNulIsTolerated() throws CommandException {
        assertEquals(5, CommandParser.parse("sync-5-5\0").end());
    }

    @Test
    void badInputGetsItsOwnCode() {
        assertEquals(CommandException.BAD_COMMAND, codeOf(""));
        assertEquals(CommandException.BAD_COMMAND, codeOf("sync"));
        assertEquals(CommandException.BAD_COMMAND, codeOf("sync-1"));
        assertEquals(CommandException.BAD_VERB, codeOf("fetch-1-2"));
        assertEquals(CommandException.BAD_KEY, codeOf("sync-x-2"));
        assertEquals(CommandException.BAD_KEY, codeOf("sync-1-"));
        assertEquals(CommandException.BAD_KEY, codeOf("sync-1-99999999999999999999"));
        assertEquals(CommandException.BAD_KEY, codeOf("sync-1-9223372036854775808"));
        assertEquals(CommandException.BAD_KEY, codeOf("sync- 1-2"));
        assertEquals(CommandException.BAD_RANGE, codeOf("sync-10-9"));
        assertEquals(CommandException.BAD_COLUMNS, codeOf("sync-1-2-"));
        assertEquals(CommandException.BAD_COMMAND, codeOf("sync-1-2-" + "x".repeat(CommandParser.MAX_COMMAND_LENGTH)));
    }

    @Test
    void reasonsQuoteTheCommandAsWritten() {
        // the ERR frame makes them ASCII, once (ErrFrame in query-client); escaping here too made "\\u00e9" of it
        CommandException e = assertThrows(CommandException.class, () -> CommandParser.parse("sy\u00e9nc-1-2"));
        assertTrue(e.reason().contains("'sy\u00e9nc'"), e.reason());
    }
}
