package io.sluice.broker.security;

import io.sluice.net.auth.InvalidFileException;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The ACL file ({@code auth.acl_file}), HOCON in NanoMQ's format:
 * <pre>
 * rules = [
 *   { permit = allow, username = "dashboard", action = subscribe, topics = ["$SYS/#"] }
 *   { permit = allow, clientid = "meter-7", action = publish, topics = ["meters/%c/#"] }
 *   { permit = deny,  ipaddr = "10.0.0.0/8", action = pubsub, topics = ["admin/#"] }
 *   { permit = allow, and = [ { username = "ops" }, { ipaddr = "192.168.1.0/24" } ], topics = ["#"] }
 *   { permit = allow, action = pubsub, topics = ["users/%u/#", "eq public/#"] }
 *   { permit = deny }
 * ]
 * </pre>
 * Each rule has {@code permit} ({@code allow} or {@code deny}, required), at most one subject
 * ({@code username}, {@code clientid}, {@code ipaddr}, {@code and} or {@code or}; none means
 * everyone; {@code "#"} as a user name or client id means any), {@code action}
 * ({@code publish}, {@code subscribe} or {@code pubsub}, the default) and {@code topics} (default
 * {@code ["#"]}). Rules are tried in order and the first that applies decides; when none does,
 * {@code auth.no_match} does. Any unknown key or bad value makes the whole file invalid,
 * reported with its line, so a typo never silently opens or closes access.
 */
public final class AclFile {
    private static final Set<String> RULE_KEYS = Set.of("permit", "action", "topics", "username", "clientid",
            "ipaddr", "and", "or");
    private static final Set<String> SUBJECT_KEYS = Set.of("username", "clientid", "ipaddr", "and", "or");

    private final Path file;

    private AclFile(Path file) {
        this.file = file;
    }

    /** Reads and validates {@code file}. */
    public static List<AclRule> read(Path file) throws InvalidFileException {
        if (!Files.isRegularFile(file)) {
            throw new InvalidFileException(file, 0, "ACL file not found");
        }
        Config config;
        try {
            config = ConfigFactory.parseFile(file.toFile(), ConfigParseOptions.defaults()
                    .setSyntax(ConfigSyntax.CONF).setAllowMissing(false)).resolve();
        } catch (ConfigException e) {
            int line = e.origin() == null ? 0 : e.origin().lineNumber();
            throw new InvalidFileException(file, Math.max(line, 0), e.getMessage(), e);
        }
        return new AclFile(file).rules(config);
    }

    private List<AclRule> rules(Config config) throws InvalidFileException {
        for (String key : config.root().keySet()) {
            if (!key.equals("rules")) {
                throw new InvalidFileException(file, line(config.root().get(key)), "unknown key '" + key
                        + "'; an ACL file holds only rules = [ ... ]");
            }
        }
        if (!config.hasPath("rules") || config.getValue("rules").valueType() != ConfigValueType.LIST) {
            throw new InvalidFileException(file, 0, "expected rules = [ { permit = allow, ... }, ... ]");
        }
        List<AclRule> rules = new ArrayList<>();
        for (ConfigValue value : (ConfigList) config.getValue("rules")) {
            rules.add(rule(object(value, "a rule")));
        }
        return List.copyOf(rules);
    }

    private AclRule rule(ConfigObject rule) throws InvalidFileException {
        int line = line(rule);
        for (String key : rule.keySet()) {
            if (!RULE_KEYS.contains(key)) {
                throw new InvalidFileException(file, line(rule.get(key)), "unknown rule key '" + key
                        + "'; expected one of " + new TreeSet<>(RULE_KEYS));
            }
        }
        String permit = string(rule, "permit", null);
        if (permit == null || !(permit.equals("allow") || permit.equals("deny"))) {
            throw new InvalidFileException(file, line, "permit must be allow or deny, got " + permit);
        }
        AclRule.Action action = action(rule);
        List<TopicPattern> topics = topics(rule);
        return new AclRule(permit.equals("allow"), subject(rule, line), action, topics, line);
    }

    private AclRule.Action action(ConfigObject rule) throws InvalidFileException {
        String action = string(rule, "action", "pubsub");
        try {
            return AclRule.Action.valueOf(action.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InvalidFileException(file, line(rule.get("action")),
                    "action must be publish, subscribe or pubsub, got '" + action + "'");
        }
    }

    private List<TopicPattern> topics(ConfigObject rule) throws InvalidFileException {
        ConfigValue value = rule.get("topics");
        if (value == null) {
            return List.of(TopicPattern.parse("#"));
        }
        if (value.valueType() != ConfigValueType.LIST || ((ConfigList) value).isEmpty()) {
            throw new InvalidFileException(file, line(value), "topics must be a non-empty list of topic filters");
        }
        List<TopicPattern> topics = new ArrayList<>();
        for (ConfigValue topic : (ConfigList) value) {
            if (topic.valueType() != ConfigValueType.STRING) {
                throw new InvalidFileException(file, line(topic), "topics must be strings, got " + topic.render());
            }
            try {
                topics.add(TopicPattern.parse((String) topic.unwrapped()));
            } catch (IllegalArgumentException e) {
                throw new InvalidFileException(file, line(topic), e.getMessage());
            }
        }
        return List.copyOf(topics);
    }

    /** The one subject key of a rule (or of an and/or element); none means everyone. */
    private AclSubject subject(ConfigObject object, int line) throws InvalidFileException {
        List<String> keys = object.keySet().stream().filter(SUBJECT_KEYS::contains).sorted().toList();
        if (keys.size() > 1) {
            throw new InvalidFileException(file, line, "a rule names at most one of username, clientid, ipaddr,"
                    + " and, or; got " + keys + " (combine them with and = [ ... ])");
        }
        if (keys.isEmpty()) {
            return new AclSubject.Everyone();
        }
        String key = keys.get(0);
        ConfigValue value = object.get(key);
        return switch (key) {
            case "username" -> new AclSubject.Username(string(object, key, null));
            case "clientid" -> new AclSubject.ClientId(string(object, key, null));
            case "ipaddr" -> ipAddress(value);
            case "and" -> new AclSubject.All(subjects(value));
            default -> new AclSubject.Any(subjects(value));
        };
    }

    private AclSubject ipAddress(ConfigValue value) throws InvalidFileException {
        try {
            return AclSubject.IpAddress.parse(String.valueOf(value.unwrapped()));
        } catch (IllegalArgumentException e) {
            throw new InvalidFileException(file, line(value), e.getMessage());
        }
    }

    private List<AclSubject> subjects(ConfigValue value) throws InvalidFileException {
        if (value.valueType() != ConfigValueType.LIST || ((ConfigList) value).isEmpty()) {
            throw new InvalidFileException(file, line(value), "and / or must be a non-empty list of"
                    + " { username | clientid | ipaddr = ... }");
        }
        List<AclSubject> parts = new ArrayList<>();
        for (ConfigValue element : (ConfigList) value) {
            ConfigObject object = object(element, "an and / or element");
            for (String key : object.keySet()) {
                if (!SUBJECT_KEYS.contains(key)) {
                    throw new InvalidFileException(file, line(object.get(key)), "unknown key '" + key
                            + "' in and / or; expected username, clientid, ipaddr, and or or");
                }
            }
            if (object.isEmpty()) {
                throw new InvalidFileException(file, line(object), "an empty { } in and / or");
            }
            parts.add(subject(object, line(object)));
        }
        return List.copyOf(parts);
    }

    private ConfigObject object(ConfigValue value, String what) throws InvalidFileException {
        if (value.valueType() != ConfigValueType.OBJECT) {
            throw new InvalidFileException(file, line(value), what + " must be an object { ... }, got "
                    + value.render());
        }
        return (ConfigObject) value;
    }

    private String string(ConfigObject object, String key, String fallback) throws InvalidFileException {
        ConfigValue value = object.get(key);
        if (value == null) {
            return fallback;
        }
        if (value.valueType() == ConfigValueType.OBJECT || value.valueType() == ConfigValueType.LIST
                || value.valueType() == ConfigValueType.NULL) {
            throw new InvalidFileException(file, line(value), key + " must be a single value, got " + value.render());
        }
        return String.valueOf(value.unwrapped());
    }

    private static int line(ConfigValue value) {
        return value == null ? 0 : Math.max(value.origin().lineNumber(), 0);
    }
}
