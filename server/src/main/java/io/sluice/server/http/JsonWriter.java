package io.sluice.server.http;

import java.util.Map;

/**
 * Writes JSON from plain values: maps with string keys, iterables, strings, numbers, booleans,
 * enums (their lower-case name) and null. Strings are escaped so that the text is also harmless
 * inside HTML: {@code <}, {@code >}, {@code &} and {@code '} become {@code \}{@code u00XX} escapes,
 * so a value sent by a caller is never echoed as markup. Stateless.
 */
public final class JsonWriter {
    private JsonWriter() {
    }

    /** {@code value} as JSON text. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder(256);
        append(out, value);
        return out.toString();
    }

    /** Appends {@code value} as JSON to {@code out}. */
    public static void append(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            appendString(out, s);
        } else if (value instanceof Double d) {
            appendDouble(out, d);
        } else if (value instanceof Float f) {
            appendDouble(out, f);
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            appendMap(out, map);
        } else if (value instanceof Iterable<?> items) {
            appendList(out, items);
        } else if (value instanceof Enum<?> e) {
            appendString(out, e.name().toLowerCase(java.util.Locale.ROOT));
        } else {
            appendString(out, value.toString());
        }
    }

    private static void appendDouble(StringBuilder out, double d) {
        if (Double.isFinite(d)) {
            out.append(d);
        } else {
            out.append("null");
        }
    }

    private static void appendMap(StringBuilder out, Map<?, ?> map) {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            appendString(out, String.valueOf(entry.getKey()));
            out.append(':');
            append(out, entry.getValue());
        }
        out.append('}');
    }

    private static void appendList(StringBuilder out, Iterable<?> items) {
        out.append('[');
        boolean first = true;
        for (Object item : items) {
            if (!first) {
                out.append(',');
            }
            first = false;
            append(out, item);
        }
        out.append(']');
    }

    /** Appends {@code s} as a JSON string, quoted and escaped. */
    public static void appendString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '<', '>', '&', '\'' -> unicode(out, c);
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        unicode(out, c);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static void unicode(StringBuilder out, char c) {
        out.append("\\u");
        String hex = Integer.toHexString(c);
        out.append("0".repeat(4 - hex.length())).append(hex);
    }
}
