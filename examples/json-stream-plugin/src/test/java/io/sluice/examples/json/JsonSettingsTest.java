package io.sluice.examples.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.stream.PluginSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonSettingsTest {

    private static String error(Map<String, Object> values) {
        return assertThrows(IllegalArgumentException.class, () -> new JsonPlugin().open(new PluginSettings("ex", values))).getMessage();
    }

    private static String error(String... fields) {
        return error(Map.of("fields", List.of(fields)));
    }

    @Test
    void fieldsBecomeColumnsInConfiguredOrder() {
        List<JsonField> fields = JsonSettings.fields(new PluginSettings("ex",
                Map.of("fields", List.of("speed:double", "vin:string", "ok:boolean", "count:long", "engine.rpm:double"))));
        assertEquals(List.of("speed", "vin", "ok", "count", "engine_rpm"), fields.stream().map(JsonField::column).toList());
        assertEquals(List.of(FieldType.DOUBLE, FieldType.STRING, FieldType.BOOLEAN, FieldType.LONG, FieldType.DOUBLE),
                fields.stream().map(JsonField::type).toList());
        assertEquals(List.of("engine", "rpm"), fields.get(4).segments());
    }

    @Test
    void anUnknownTypeNamesTheEntry() {
        assertEquals("plugin.fields[2]: unknown type 'dbl'; types: double, long, string, boolean",
                error("speed:double", "vin:string", "rpm:dbl"));
    }

    @Test
    void fieldsAreRequiredAsAListOfText() {
        assertEquals("plugin.fields: required: a non-empty list of \"<path>:<type>\", e.g. [\"speed:double\", \"vin:string\"];"
                + " types: double, long, string, boolean", error(Map.of()));
        assertEquals("plugin.fields: required: a non-empty list of \"<path>:<type>\", e.g. [\"speed:double\", \"vin:string\"];"
                + " types: double, long, string, boolean", error());
        assertEquals("plugin.fields: expected a list of text, was String speed:double", error(Map.of("fields", "speed:double")));
        assertEquals("plugin.fields[1]: expected text, was Integer 3", error(Map.of("fields", List.of("a:long", 3))));
    }

    @Test
    void badEntriesNameTheirIndexAndWhatIsWrong() {
        assertEquals("plugin.fields[0]: 'speed' is not \"<path>:<type>\"; types: double, long, string, boolean", error("speed"));
        assertEquals("plugin.fields[1]: path 'engine..rpm' has an empty member name", error("a:long", "engine..rpm:double"));
        assertEquals("plugin.fields[0]: path 'wheel speed' has ' '; member names may hold letters, digits, '_' and '-'",
                error("wheel speed:double"));
        assertEquals("plugin.fields[0]: 'raw' would be column 'raw', which the plugin uses itself (offset, raw, topic, ts)",
                error("raw:string"));
        assertEquals("plugin.fields[1]: column 'speed' (from 'speed') is already given by plugin.fields[0]",
                error("speed:double", "speed:long"));
        assertEquals("plugin.fields[1]: column 'engine_rpm' (from 'engine_rpm') is already given by plugin.fields[0]",
                error("engine.rpm:double", "engine_rpm:double"));
        assertEquals("plugin.fields[1]: 'engine.rpm' and plugin.fields[0] 'engine' cannot both be fields: one lies inside the other",
                error("engine:string", "engine.rpm:double"));
    }

    @Test
    void unknownKeysAreRefused() {
        assertEquals("plugin.feilds: unknown setting for stream plugin json; known: [fields]",
                error(Map.of("fields", List.of("a:long"), "feilds", List.of())));
    }
}
