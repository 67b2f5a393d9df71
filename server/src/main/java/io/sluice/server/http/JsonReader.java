package io.sluice.server.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses a JSON text (RFC 8259) into plain values: {@link Map} (insertion order), {@link List},
 * {@link String}, {@link Long} or {@link Double}, {@link Boolean} and null. Nesting is limited,
 * so a hostile body cannot exhaust the stack. Errors say where the text went wrong, never what
 * it held.
 */
public final class JsonReader {
    private static final int MAX_DEPTH = 64;

    private final String text;
    private int pos;
    private int depth;

    private JsonReader(String text) {
        this.text = text;
    }

    /** Parses {@code text}; throws {@link IllegalArgumentException} naming the position of the first problem. */
    public static Object parse(String text) {
        JsonReader reader = new JsonReader(text);
        reader.skipSpace();
        Object value = reader.value();
        reader.skipSpace();
        if (reader.pos != text.length()) {
            throw reader.error("unexpected text after the JSON value");
        }
        return value;
    }

    private Object value() {
        if (pos >= text.length()) {
            throw error("the text ends where a value was expected");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    yield number();
                }
                throw error("unexpected character");
            }
        };
    }

    private Map<String, Object> object() {
        enter();
        pos++;
        Map<String, Object> map = new LinkedHashMap<>();
        skipSpace();
        if (peek() == '}') {
            pos++;
            depth--;
            return map;
        }
        while (true) {
            skipSpace();
            if (peek() != '"') {
                throw error("expected a quoted member name");
            }
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            map.put(key, value());
            skipSpace();
            if (peek() == ',') {
                pos++;
                continue;
            }
            expect('}');
            depth--;
            return map;
        }
    }

    private List<Object> array() {
        enter();
        pos++;
        List<Object> list = new ArrayList<>();
        skipSpace();
        if (peek() == ']') {
            pos++;
            depth--;
            return list;
        }
        while (true) {
            skipSpace();
            list.add(value());
            skipSpace();
            if (peek() == ',') {
                pos++;
                continue;
            }
            expect(']');
            depth--;
            return list;
        }
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw error("nested deeper than " + MAX_DEPTH + " levels");
        }
    }

    private String string() {
        pos++;
        StringBuilder out = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c == '\\') {
                out.append(escape());
            } else if (c < 0x20) {
                throw error("control character inside a string");
            } else {
                out.append(c);
            }
        }
        throw error("unterminated string");
    }

    private char escape() {
        if (pos >= text.length()) {
            throw error("unterminated escape");
        }
        char c = text.charAt(pos++);
        return switch (c) {
            case '"', '\\', '/' -> c;
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> {
                if (pos + 4 > text.length()) {
                    throw error("short unicode escape");
                }
                try {
                    char u = (char) Integer.parseInt(text.substring(pos, pos + 4), 16);
                    pos += 4;
                    yield u;
                } catch (NumberFormatException e) {
                    throw error("bad unicode escape");
                }
            }
            default -> throw error("unknown escape");
        };
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        boolean decimal = false;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c >= '0' && c <= '9') {
                pos++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                decimal = true;
                pos++;
            } else {
                break;
            }
        }
        String digits = text.substring(start, pos);
        try {
            if (!decimal) {
                return Long.parseLong(digits);
            }
            return Double.parseDouble(digits);
        } catch (NumberFormatException e) {
            pos = start;
            throw error("malformed number");
        }
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw error("unexpected word");
        }
        pos += word.length();
        return value;
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private IllegalArgumentException error(String problem) {
        return new IllegalArgumentException("JSON body is not valid at character " + pos + ": " + problem);
    }
}
