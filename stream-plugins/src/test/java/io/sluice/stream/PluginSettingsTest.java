package io.sluice.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PluginSettingsTest {

    @Test
    void typedGettersNameTheKeyOnError() {
        PluginSettings settings = new PluginSettings("ex", Map.of("fields", List.of("speed:double", 3), "n", "x", "on", true));
        IllegalArgumentException list = assertThrows(IllegalArgumentException.class, () -> settings.strings("fields"));
        assertTrue(list.getMessage().startsWith("plugin.fields[1]: "), list.getMessage());
        IllegalArgumentException number = assertThrows(IllegalArgumentException.class, () -> settings.number("n", 0));
        assertTrue(number.getMessage().startsWith("plugin.n: "), number.getMessage());
        assertTrue(settings.flag("on", false));
        assertEquals("d", settings.string("absent", "d"));
    }

    @Test
    void unknownKeysAreRefused() {
        PluginSettings settings = new PluginSettings("ex", Map.of("fieldz", 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings.allowOnly(Set.of("fields"), "json"));
        assertTrue(e.getMessage().startsWith("plugin.fieldz: unknown setting"), e.getMessage());
    }
}
