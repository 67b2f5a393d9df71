package io.sluice.streams;

import io.sluice.settings.InvalidSettingException;
/**
 * The rules for a stream's name, which are Kafka's rules for a topic name because each stream is
 * served as the Kafka topic of its name: 1 to 249 characters from {@code [a-zA-Z0-9._-]}, and
 * neither {@code .} nor {@code ..}. One rule of Sluice's own: each partition is a storage
 * directory named {@code <name>_<n>} with every {@code .} written as three characters, and those
 * names must fit the storage's limit, so the name may count at most {@value #MAX_STORED_LENGTH}
 * characters when each dot counts three.
 */
public final class StreamName {
    /** Kafka's limit on a topic name. */
    public static final int MAX_LENGTH = 249;
    /** The storage's directory-name limit less room for {@code _<partition>}. */
    public static final int MAX_STORED_LENGTH = 180;

    private StreamName() {
    }

    /** Whether {@code name} may name a stream. */
    public static boolean isValid(String name) {
        return problem(name) == null;
    }

    /** Throws {@link IllegalArgumentException} ("name: ...") when {@code name} may not name a stream. */
    public static void check(String name) {
        String problem = problem(name);
        if (problem != null) {
            throw new InvalidSettingException("name", problem);
        }
    }

    /** What is wrong with {@code name}, or null. */
    public static String problem(String name) {
        if (name == null || name.isEmpty()) {
            return "must not be empty";
        }
        if (name.equals(".") || name.equals("..")) {
            return "'" + name + "' is not allowed (Kafka topic name rules)";
        }
        if (name.length() > MAX_LENGTH) {
            return "'" + name + "' has " + name.length() + " characters, Kafka allows at most " + MAX_LENGTH;
        }
        int stored = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            if (!plain && c != '.') {
                return "'" + name + "' contains '" + c + "': Kafka topic names use only letters, digits, '.', '_' and '-'";
            }
            stored += plain ? 1 : 3;
        }
        if (stored > MAX_STORED_LENGTH) {
            return "'" + name + "' is too long for its storage directories: at most " + MAX_STORED_LENGTH
                    + " characters with each '.' counting 3, got " + stored;
        }
        return null;
    }
}
