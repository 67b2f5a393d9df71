package io.sluice.server.http;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The validated configuration as plain values for JSON: each record becomes an object of its
 * components (named in snake case), lists and maps are followed, anything else is shown by its
 * text. Secrets never leave: a component whose name mentions a password, secret, token or key
 * material, and any byte array, is shown as {@value #MASK} when set.
 */
public final class ConfigView {
    static final String MASK = "******";
    private static final int MAX_DEPTH = 16;

    private ConfigView() {
    }

    /** {@code config} (normally a record) as maps, lists and plain values. */
    public static Object of(Object config) {
        return view(config, 0);
    }

    private static Object view(Object value, int depth) {
        if (value == null || value instanceof String || value instanceof Number || value instanceof Boolean) {
            return value;
        }
        if (depth > MAX_DEPTH) {
            return String.valueOf(value);
        }
        if (value instanceof byte[] || value instanceof char[]) {
            return MASK;
        }
        if (value instanceof Enum<?> e) {
            return e.name().toLowerCase(Locale.ROOT);
        }
        if (value instanceof Path || value instanceof Duration) {
            return value.toString();
        }
        if (value instanceof Record record) {
            return recordView(record, depth);
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(String.valueOf(k), isSecret(String.valueOf(k)) ? mask(v) : view(v, depth + 1)));
            return out;
        }
        if (value instanceof Iterable<?> items) {
            List<Object> out = new ArrayList<>();
            items.forEach(item -> out.add(view(item, depth + 1)));
            return out;
        }
        return value.toString();
    }

    private static Map<String, Object> recordView(Record record, int depth) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (RecordComponent component : record.getClass().getRecordComponents()) {
            Object v;
            try {
                v = component.getAccessor().invoke(record);
            } catch (IllegalAccessException | InvocationTargetException e) {
                v = "(unreadable: " + e.getClass().getSimpleName() + ")";
            }
            String name = snake(component.getName());
            out.put(name, isSecret(name) ? mask(v) : view(v, depth + 1));
        }
        return out;
    }

    private static Object mask(Object value) {
        return value == null ? null : MASK;
    }

    /** Names of secrets; {@code key} (a Kafka key source) is a choice, not a secret. */
    static boolean isSecret(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.endsWith("file") || n.endsWith("_dir")) {
            return false; // where a secret lives (password_file, keyfile), not the secret
        }
        return n.contains("password") || n.contains("secret") || n.contains("token") || n.contains("credential")
                || n.contains("salt") || n.equals("stored_key") || n.equals("server_key");
    }

    private static String snake(String camel) {
        StringBuilder out = new StringBuilder(camel.length() + 4);
        for (char c : camel.toCharArray()) {
            if (Character.isUpperCase(c)) {
                out.append('_').append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
