package io.sluice.server.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.sluice.net.limits.Rate;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed, validated reads of a parsed HOCON file that remember every key they were asked about,
 * so that {@link #rejectUnknownKeys()} can name any key nobody reads: a typo such as
 * {@code max_packt_size} must stop start-up, not be silently ignored. Every error names the
 * full path of the key.
 *
 * <p>Sizes are written as NanoMQ writes them ({@code 1KB} = 1024 bytes, also {@code B}, {@code MB},
 * {@code GB}, {@code KiB}...); durations as {@code 500ms}, {@code 10s}, {@code 5m}, {@code 2h},
 * {@code 7d}, and a bare number means seconds, the unit of MQTT's own intervals.
 */
public final class ConfigReader {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]*)");
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d)?");

    private final Config config;
    private final Path baseDir;
    /** What error paths start with: empty for the file, {@code a.b[2]} for an object of a list. */
    private final String prefix;
    private final Set<String> known = new HashSet<>();
    private final Set<String> knownPrefixes = new HashSet<>();

    public ConfigReader(Config config) {
        this(config, Path.of(""));
    }

    /** A reader that resolves relative file names ({@link #file}) against {@code baseDir}, the configuration file's folder. */
    public ConfigReader(Config config, Path baseDir) {
        this(config, baseDir, "");
    }

    private ConfigReader(Config config, Path baseDir, String prefix) {
        this.config = config;
        this.baseDir = baseDir;
        this.prefix = prefix;
    }

    /** Where this reader's keys sit: empty for the file, {@code a.b[2]} for an object of a list. */
    public String path() {
        return prefix;
    }

    /** The full path of {@code path} as errors name it. */
    public String pathOf(String path) {
        return prefix.isEmpty() ? path : prefix + "." + path;
    }

    /**
     * The objects of the list at {@code path} ({@code forwards = [ { ... }, { ... } ]}), each read by
     * a reader of its own whose errors name {@code path[i].key}; call {@link #rejectUnknownKeys()} on
     * each once it is read. Anything in the list that is not an object stops start-up.
     */
    public List<ConfigReader> objects(String path) {
        known.add(path);
        if (!config.hasPath(path)) {
            return List.of();
        }
        if (config.getValue(path).valueType() != ConfigValueType.LIST) {
            throw new ConfigError(pathOf(path), "must be a list of blocks such as [ { ... }, { ... } ]");
        }
        List<ConfigReader> readers = new ArrayList<>();
        List<? extends ConfigValue> values = config.getList(path);
        for (int i = 0; i < values.size(); i++) {
            ConfigValue value = values.get(i);
            String itemPath = pathOf(path) + "[" + i + "]";
            if (value.valueType() != ConfigValueType.OBJECT) {
                throw new ConfigError(itemPath, "must be a block { ... }, got " + value.render());
            }
            readers.add(new ConfigReader(((com.typesafe.config.ConfigObject) value).toConfig(), baseDir, itemPath));
        }
        return readers;
    }

    /** Whether the file sets {@code path} (a value or a block). */
    public boolean has(String path) {
        known.add(path);
        return config.hasPath(path);
    }

    /** Marks everything under {@code path} as read by someone else (free-form blocks). */
    public void acceptAllUnder(String path) {
        knownPrefixes.add(path + ".");
    }

    /** Marks keys NanoMQ defines that Sluice reads but ignores, so their files load unchanged. */
    public void tolerate(String... paths) {
        known.addAll(List.of(paths));
    }

    /** The names of the sub-blocks of {@code path}, e.g. the ids under {@code exchange_client}. */
    public List<String> blockNames(String path) {
        if (!config.hasPath(path)) {
            return List.of();
        }
        if (config.getValue(path).valueType() != ConfigValueType.OBJECT) {
            throw new ConfigError(pathOf(path), "must be a block { ... }");
        }
        return new ArrayList<>(new TreeSet<>(config.getObject(path).keySet()));
    }

    /** Whether the file sets {@code path} to a block { ... }. */
    public boolean isBlock(String path) {
        known.add(path);
        return config.hasPath(path) && config.getValue(path).valueType() == ConfigValueType.OBJECT;
    }

    /** Whether the block at {@code path} holds a further block (a nested key). */
    public boolean holdsBlock(String path) {
        if (!isBlock(path)) {
            return false;
        }
        for (ConfigValue value : config.getObject(path).values()) {
            if (value.valueType() == ConfigValueType.OBJECT) {
                return true;
            }
        }
        return false;
    }

    public String string(String path, String fallback) {
        known.add(path);
        if (!config.hasPath(path)) {
            return fallback;
        }
        ConfigValue value = config.getValue(path);
        if (value.valueType() == ConfigValueType.OBJECT || value.valueType() == ConfigValueType.LIST) {
            throw new ConfigError(pathOf(path), "must be a single value, not " + value.valueType().name().toLowerCase(Locale.ROOT));
        }
        return String.valueOf(value.unwrapped());
    }

    /** A value that must be present. */
    public String requiredString(String path) {
        String value = string(path, null);
        if (value == null || value.isBlank()) {
            throw new ConfigError(pathOf(path), "is required");
        }
        return value;
    }

    public boolean bool(String path, boolean fallback) {
        known.add(path);
        if (!config.hasPath(path)) {
            return fallback;
        }
        try {
            return config.getBoolean(path);
        } catch (ConfigException.WrongType e) {
            throw new ConfigError(pathOf(path), "must be true or false, got " + render(path));
        }
    }

    public long integer(String path, long fallback, long min, long max) {
        known.add(path);
        if (!config.hasPath(path)) {
            return fallback;
        }
        long value;
        try {
            value = config.getLong(path);
        } catch (ConfigException.WrongType e) {
            throw new ConfigError(pathOf(path), "must be a whole number, got " + render(path));
        }
        return checkRange(pathOf(path), value, min, max, "");
    }

    public double decimal(String path, double fallback, double min, double max) {
        known.add(path);
        if (!config.hasPath(path)) {
            return fallback;
        }
        double value;
        try {
            value = config.getDouble(path);
        } catch (ConfigException.WrongType e) {
            throw new ConfigError(pathOf(path), "must be a number, got " + render(path));
        }
        if (value < min || value > max) {
            throw new ConfigError(pathOf(path), "must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    /** A size in bytes, e.g. {@code 10KB}. */
    public long bytes(String path, long fallback, long min, long max) {
        String text = string(path, null);
        if (text == null) {
            return fallback;
        }
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new ConfigError(pathOf(path), "must be a size such as 512KB or 10MB, got '" + text + "'");
        }
        long unit = switch (m.group(2).toUpperCase(Locale.ROOT)) {
            case "", "B" -> 1L;
            case "K", "KB", "KIB" -> 1L << 10;
            case "M", "MB", "MIB" -> 1L << 20;
            case "G", "GB", "GIB" -> 1L << 30;
            case "T", "TB", "TIB" -> 1L << 40;
            default -> throw new ConfigError(pathOf(path), "unknown size unit '" + m.group(2) + "' (use B, KB, MB, GB or TB)");
        };
        long value = (long) (Double.parseDouble(m.group(1)) * unit);
        return checkRange(pathOf(path), value, min, max, " bytes");
    }

    /** A duration in milliseconds, e.g. {@code 10s}; a bare number is seconds. */
    public long millis(String path, long fallback, long min, long max) {
        return millis(path, fallback, min, max, "s");
    }

    /**
     * A duration in milliseconds, e.g. {@code 10s}; a bare number is in {@code bareUnit} ({@code ms}
     * for the keys NanoMQ documents in milliseconds, such as a bridge's {@code cancel_timeout}).
     */
    public long millis(String path, long fallback, long min, long max, String bareUnit) {
        String text = string(path, null);
        if (text == null) {
            return fallback;
        }
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new ConfigError(pathOf(path), "must be a duration such as 500ms, 10s, 5m, 2h or 7d, got '" + text + "'");
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? bareUnit : m.group(2);
        long factor = switch (unit) {
            case "ms" -> 1L;
            case "s" -> 1_000L;
            case "m" -> 60_000L;
            case "h" -> 3_600_000L;
            default -> 86_400_000L;
        };
        return checkRange(pathOf(path), (long) (amount * factor), min, max, " ms");
    }

    /** A duration in whole seconds. */
    public long seconds(String path, long fallbackSeconds, long minSeconds, long maxSeconds) {
        long ms = millis(path, fallbackSeconds * 1000L, minSeconds * 1000L, maxSeconds * 1000L);
        return ms / 1000L;
    }

    /** One of {@code choices}, case-insensitive; returned in lower case. */
    public String choice(String path, String fallback, String... choices) {
        String value = string(path, fallback);
        for (String choice : choices) {
            if (choice.equalsIgnoreCase(value)) {
                return choice;
            }
        }
        throw new ConfigError(pathOf(path), "must be one of " + String.join(", ", choices) + ", got '" + value + "'");
    }

    /** {@code "host:port"}; port 0 picks a free port. */
    public InetSocketAddress hostPort(String path, String fallback) {
        return parseHostPort(path, string(path, fallback));
    }

    /** Parses {@code text} as {@code "host:port"}; errors name {@code path}. */
    public InetSocketAddress parseHostPort(String path, String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) {
            throw new ConfigError(pathOf(path), "must be \"host:port\", got '" + text + "'");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ConfigError(pathOf(path), "port must be a number, got '" + text.substring(colon + 1) + "'");
        }
        if (port < 0 || port > 65535) {
            throw new ConfigError(pathOf(path), "port must be between 0 and 65535, got " + port);
        }
        return new InetSocketAddress(host, port);
    }

    /**
     * A rate such as {@code "20/s"} or, with {@code sizes}, {@code "1MB/s"}; a bare number is per
     * second and {@code infinity} means no limit (see {@link Rate#parse}).
     */
    public Rate rate(String path, Rate fallback, boolean sizes) {
        String text = string(path, null);
        if (text == null) {
            return fallback;
        }
        try {
            return Rate.parse(text, sizes);
        } catch (IllegalArgumentException e) {
            throw new ConfigError(pathOf(path), e.getMessage(), e);
        }
    }

    /** A path, or {@code fallback} (which may be null) when the key is not set; relative paths stay relative. */
    public Path path(String path, String fallback) {
        String text = string(path, fallback);
        if (text == null) {
            return null;
        }
        try {
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw new ConfigError(pathOf(path), "is not a usable path: " + e.getMessage(), e);
        }
    }

    /**
     * A file that must exist and be readable, or null if the key is not set. A relative name is
     * resolved against the configuration file's folder.
     */
    public Path file(String path) {
        String text = string(path, null);
        if (text == null) {
            return null;
        }
        if (text.isBlank()) {
            throw new ConfigError(pathOf(path), "must name a file");
        }
        Path file;
        try {
            file = baseDir.resolve(text).normalize();
        } catch (InvalidPathException e) {
            throw new ConfigError(pathOf(path), "is not a usable file name: " + e.getMessage(), e);
        }
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new ConfigError(pathOf(path), "file '" + file + "' does not exist or cannot be read");
        }
        return file;
    }

    /** A list of strings. */
    public List<String> strings(String path) {
        known.add(path);
        if (!config.hasPath(path)) {
            return List.of();
        }
        try {
            return config.getStringList(path);
        } catch (ConfigException.WrongType e) {
            throw new ConfigError(pathOf(path), "must be a list of strings such as [\"a\", \"b\"]");
        }
    }

    /** The raw block under {@code path} as plain Java values, all of it accepted as known. */
    public Map<String, Object> block(String path) {
        acceptAllUnder(path);
        known.add(path);
        if (!config.hasPath(path)) {
            return Map.of();
        }
        return config.getObject(path).unwrapped();
    }

    /** Fails on the first key (in file order of paths) that no reader asked about. */
    public void rejectUnknownKeys() {
        TreeSet<String> unknown = new TreeSet<>();
        for (Map.Entry<String, ConfigValue> entry : config.entrySet()) {
            String path = entry.getKey();
            if (!isKnown(path)) {
                unknown.add(path);
            }
        }
        if (!unknown.isEmpty()) {
            String first = unknown.first();
            int line = config.getValue(first).origin().lineNumber();
            throw new ConfigError(pathOf(first), "unknown key" + (line > 0 ? " (line " + line + ")" : "")
                    + "; see the configuration reference in README.md");
        }
    }

    private boolean isKnown(String path) {
        if (known.contains(path)) {
            return true;
        }
        for (String prefix : knownPrefixes) {
            if (path.startsWith(prefix)) {
                return true;
            }
        }
        // A key that contains a dot comes back quoted; compare it by its parts too.
        return known.contains(String.join(".", ConfigUtil.splitPath(path)));
    }

    private String render(String path) {
        return config.getValue(path).render();
    }

    private static long checkRange(String path, long value, long min, long max, String unit) {
        if (value < min || value > max) {
            throw new ConfigError(path, "must be between " + min + " and " + max + unit + ", got " + value + unit);
        }
        return value;
    }
}
