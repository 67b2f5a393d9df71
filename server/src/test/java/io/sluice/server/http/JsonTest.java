package io.sluice.server.http;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The API's JSON: what it writes is safe inside HTML, what it reads is strict and bounded. */
class JsonTest {
    @Test
    void writtenStringsCannotCloseAScriptOrStartMarkup() {
        String json = JsonWriter.write(Map.of("message", "</script><img src=x onerror='alert(1)'>&"));
        assertFalse(json.contains("<") || json.contains(">") || json.contains("&") || json.contains("'"), json);
        assertEquals(Map.of("message", "</script><img src=x onerror='alert(1)'>&"), JsonReader.parse(json));
    }

    @Test
    void valuesRoundTrip() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("n", 42L);
        value.put("d", 1.5);
        value.put("s", "line\nbreak \"quoted\" \\ \u0001 é");
        value.put("list", Arrays.asList(true, false, null));
        value.put("nested", Map.of("k", List.of()));
        assertEquals(value, JsonReader.parse(JsonWriter.write(value)));
        assertEquals("null", JsonWriter.write(Double.NaN), "JSON has no NaN");
    }

    @Test
    void malformedOrHostileTextIsRefusedWithItsPosition() {
        for (String bad : List.of("", "{", "{\"a\" 1}", "[1,]", "{\"a\":1} x", "\"\\q\"", "01x", "nul")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JsonReader.parse(bad), bad);
            assertTrue(e.getMessage().contains("at character"), e.getMessage());
        }
        String deep = "[".repeat(10_000) + "]".repeat(10_000);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> JsonReader.parse(deep)).getMessage()
                .contains("nested deeper"));
    }
}
