package io.sluice.examples.json;

import io.sluice.settings.InvalidSettingException;
import io.sluice.stream.PluginSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JSON plugin's settings, the exchange's {@code plugin { }} block:
 *
 * <pre>
 *  plugin {
 *    fields = ["speed:double", "vin:string", "ok:boolean", "count:long", "engine.rpm:double"]
 *  }
 * </pre>
 *
 * Each entry is {@code <path>:<type>}: a member name, or names joined by {@code .} to reach into
 * nested objects, and a {@link FieldType} label. Member names may hold letters, digits,
 * {@code _} and {@code -}; a field's column is its path with {@code .} replaced by {@code _}. A
 * bad entry is an error naming its key, e.g. {@code plugin.fields[2]: unknown type 'dbl'}.
 */
public final class JsonSettings {

    /** The one key. */
    public static final String FIELDS = "fields";
    /** Column names the plugin uses itself. */
    static final Set<String> RESERVED_COLUMNS = Set.of("ts", "offset", "topic", "raw");

    private JsonSettings() {
    }

    /** The fields, in configured order. */
    public static List<JsonField> fields(PluginSettings settings) {
        settings.allowOnly(Set.of(FIELDS), JsonPlugin.NAME);
        List<String> specs = settings.strings(FIELDS);
        if (specs.isEmpty()) {
            throw new InvalidSettingException(PluginSettings.path(FIELDS), "required: a non-empty list of \"<path>:<type>\","
                    + " e.g. [\"speed:double\", \"vin:string\"]; types: " + FieldType.labels());
        }
        List<JsonField> fields = new ArrayList<>(specs.size());
        Map<String, String> byColumn = new HashMap<>();
        for (int i = 0; i < specs.size(); i++) {
            String key = PluginSettings.path(FIELDS) + "[" + i + "]";
            JsonField field = field(key, specs.get(i), i);
            String before = byColumn.putIfAbsent(field.column(), key);
            if (before != null) {
                throw new InvalidSettingException(key, "column '" + field.column() + "' (from '" + field.path()
                        + "') is already given by " + before);
            }
            checkNesting(key, field, fields);
            fields.add(field);
        }
        return List.copyOf(fields);
    }

    private static JsonField field(String key, String spec, int index) {
        int colon = spec.lastIndexOf(':');
        if (colon < 0) {
            throw new InvalidSettingException(key, "'" + spec + "' is not \"<path>:<type>\"; types: " + FieldType.labels());
        }
        String path = spec.substring(0, colon).trim();
        String label = spec.substring(colon + 1).trim();
        FieldType type = FieldType.of(label);
        if (type == null) {
            throw new InvalidSettingException(key, "unknown type '" + label + "'; types: " + FieldType.labels());
        }
        List<String> segments = List.of(path.split("\\.", -1));
        for (String segment : segments) {
            checkSegment(key, path, segment);
        }
        String column = String.join("_", segments);
        if (column.length() > 255) {
            throw new InvalidSettingException(key, "path '" + path + "' is longer than 255 characters");
        }
        if (RESERVED_COLUMNS.contains(column)) {
            throw new InvalidSettingException(key, "'" + path + "' would be column '" + column
                    + "', which the plugin uses itself (" + String.join(", ", RESERVED_COLUMNS.stream().sorted().toList()) + ")");
        }
        return new JsonField(path, segments, column, type, index);
    }

    private static void checkSegment(String key, String path, String segment) {
        if (segment.isEmpty()) {
            throw new InvalidSettingException(key, "path '" + path + "' has an empty member name");
        }
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            if (!ok) {
                throw new InvalidSettingException(key, "path '" + path + "' has '" + c
                        + "'; member names may hold letters, digits, '_' and '-'");
            }
        }
    }

    /** A field may not lie inside another (a value cannot be both a scalar and an object). */
    private static void checkNesting(String key, JsonField field, List<JsonField> earlier) {
        for (JsonField other : earlier) {
            List<String> shorter = other.segments().size() <= field.segments().size() ? other.segments() : field.segments();
            List<String> longer = shorter == other.segments() ? field.segments() : other.segments();
            if (longer.subList(0, shorter.size()).equals(shorter)) {
                throw new InvalidSettingException(key, "'" + field.path() + "' and plugin.fields[" + other.index() + "] '"
                        + other.path() + "' cannot both be fields: one lies inside the other");
            }
        }
    }
}
