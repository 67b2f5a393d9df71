package io.sluice.stream;

import io.sluice.settings.InvalidSettingException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The plugin-specific settings of one exchange: its {@code plugin { }} block as plain Java values
 * (String, Number, Boolean, List, Map). The typed getters throw {@link InvalidSettingException}
 * with the key path relative to the exchange ({@code plugin.<key>}, see {@link #path}), which
 * start-up reports with the exchange's full path; a plugin's own checks should do the same.
 *
 * @param exchange the exchange's name, for messages
 * @param values   the settings by key
 */
public record PluginSettings(String exchange, Map<String, Object> values) {

    public PluginSettings {
        Objects.requireNonNull(exchange, "exchange");
        values = Map.copyOf(Objects.requireNonNull(values, "values"));
    }

    /** No settings. */
    public static PluginSettings none(String exchange) {
        return new PluginSettings(exchange, Map.of());
    }

    /** Rejects any key not in {@code known}, naming it and the known ones. */
    public void allowOnly(Set<String> known, String pluginName) {
        for (String key : new TreeSet<>(values.keySet())) {
            if (!known.contains(key)) {
                throw new InvalidSettingException(path(key), "unknown setting for stream plugin " + pluginName
                        + (known.isEmpty() ? ", which takes none" : "; known: " + new TreeSet<>(known)));
            }
        }
    }

    /** A text setting, or the default when absent. */
    public String string(String key, String defaultValue) {
        Object value = values.get(key);
        if (value == null) {
            return defaultValue;
        }
        if (!(value instanceof String text)) {
            throw new InvalidSettingException(path(key), "expected text, was " + describe(value));
        }
        return text;
    }

    /** A whole-number setting, or the default when absent. */
    public long number(String key, long defaultValue) {
        Object value = values.get(key);
        if (value == null) {
            return defaultValue;
        }
        if (!(value instanceof Number n) || n.doubleValue() != n.longValue()) {
            throw new InvalidSettingException(path(key), "expected a whole number, was " + describe(value));
        }
        return n.longValue();
    }

    /** A true/false setting, or the default when absent. */
    public boolean flag(String key, boolean defaultValue) {
        Object value = values.get(key);
        if (value == null) {
            return defaultValue;
        }
        if (!(value instanceof Boolean b)) {
            throw new InvalidSettingException(path(key), "expected true or false, was " + describe(value));
        }
        return b;
    }

    /** A list-of-text setting, or an empty list when absent. */
    public List<String> strings(String key) {
        Object value = values.get(key);
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            throw new InvalidSettingException(path(key), "expected a list of text, was " + describe(value));
        }
        List<String> texts = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof String text)) {
                throw new InvalidSettingException(path(key) + "[" + i + "]", "expected text, was " + describe(list.get(i)));
            }
            texts.add(text);
        }
        return List.copyOf(texts);
    }

    /** The key's path relative to the exchange block, for messages. */
    public static String path(String key) {
        return "plugin." + key;
    }

    private static String describe(Object value) {
        return value.getClass().getSimpleName() + " " + value;
    }
}
