package io.sluice.server.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

import com.typesafe.config.ConfigUtil;
import io.sluice.bridges.CacheSettings;
import io.sluice.bridges.FullPolicy;
import io.sluice.bridges.MessageProperties;
import io.sluice.bridges.UserProperty;
import io.sluice.bridges.kafka.KafkaBridgeSettings;
import io.sluice.bridges.mqtt.ForwardRule;
import io.sluice.bridges.mqtt.MqttBridgeSettings;
import io.sluice.bridges.mqtt.ServerAddress;
import io.sluice.bridges.mqtt.SubscriptionRule;
import io.sluice.net.tls.TlsClientSettings;
import io.sluice.storage.FlushPolicy;

/**
 * The {@code bridges} section: {@code bridges.mqtt.<name>} blocks with NanoMQ's keys and meanings
 * (so a NanoMQ bridge block loads unchanged), {@code bridges.mqtt.cache} for their backlogs, and
 * {@code bridges.kafka.<name>} / {@code bridges.kafka.cache} for Kafka producer bridges. Keys that
 * make no sense here (QUIC, hybrid bridging, {@code transparent}, TCP tuning Sluice does not apply)
 * stop start-up with the reason; NanoMQ keys that Sluice accepts but does not need (its resend
 * timers, its worker count) are listed in {@link #notes()} and logged once at start-up.
 *
 * @param nodeId     {@code bridges.node_id}: this Sluice's name in the path of bridged MQTT 5 messages (loop safety);
 *                   by default the host name and a hash of the MQTT backlog directory, stable across restarts
 * @param mqtt       the enabled MQTT bridges
 * @param mqttCache  {@code bridges.mqtt.cache}
 * @param kafka      the enabled Kafka bridges
 * @param kafkaCache {@code bridges.kafka.cache}
 * @param notes      keys accepted without effect, each with the reason, for the start-up log
 */
public record BridgesConfig(String nodeId, List<MqttBridgeSettings> mqtt, CacheSettings mqttCache, List<KafkaBridgeSettings> kafka,
                            CacheSettings kafkaCache, List<String> notes) {
    /** Where backlogs live unless {@code mounted_file_path} says otherwise (relative to the working directory). */
    static final String DEFAULT_DIR = "data/bridges";
    private static final List<String> QUIC_KEYS = List.of("quic_keepalive", "quic_idle_timeout", "quic_discon_timeout",
            "quic_handshake_timeout", "quic_send_idle_timeout", "quic_initial_rtt_ms", "quic_max_ack_delay_ms",
            "quic_multi_stream", "quic_qos_priority", "quic_0rtt", "hybrid_bridging", "hybrid_servers");
    private static final List<String> TCP_TUNING = List.of("quickack", "keepidle", "keepintvl", "keepcnt", "sendtimeo",
            "recvtimeo", "bind_interface");

    public BridgesConfig {
        mqtt = List.copyOf(mqtt);
        kafka = List.copyOf(kafka);
        notes = List.copyOf(notes);
    }

    /** Whether no bridge is configured. */
    public boolean isEmpty() {
        return mqtt.isEmpty() && kafka.isEmpty();
    }

    static BridgesConfig read(ConfigReader r) {
        for (String kind : r.blockNames("bridges")) {
            if (!kind.equals("mqtt") && !kind.equals("kafka") && !kind.equals("node_id")) {
                throw new ConfigError("bridges." + kind, kind.equals("aws")
                        ? "AWS IoT bridges are not supported: use bridges.mqtt with tls+mqtt-tcp:// and ssl { }"
                        : "unknown bridge type: Sluice has bridges.mqtt and bridges.kafka");
            }
        }
        List<String> notes = new ArrayList<>();
        CacheSettings mqttCache = cache(r, "bridges.mqtt.cache", notes);
        String nodeId = r.string("bridges.node_id", defaultClientId("sluice", mqttCache.dir()));
        if (!nodeId.matches("[A-Za-z0-9_.:-]{1,128}")) {
            throw new ConfigError("bridges.node_id", "a node id may hold 1 to 128 letters, digits, '_', '.', ':'"
                    + " and '-', got '" + nodeId + "'");
        }
        CacheSettings kafkaCache = cache(r, "bridges.kafka.cache", notes);
        Map<String, String> names = new HashMap<>();
        List<MqttBridgeSettings> mqtt = new ArrayList<>();
        for (String name : bridgeNames(r, "bridges.mqtt", names)) {
            MqttBridgeSettings settings = mqtt(r, name, mqttCache.dir(), notes);
            if (settings != null) {
                mqtt.add(settings);
            }
        }
        List<KafkaBridgeSettings> kafka = new ArrayList<>();
        for (String name : bridgeNames(r, "bridges.kafka", names)) {
            KafkaBridgeSettings settings = kafka(r, name);
            if (settings != null) {
                kafka.add(settings);
            }
        }
        return new BridgesConfig(nodeId, mqtt, mqttCache, kafka, kafkaCache, notes);
    }

    /** The bridge names under {@code path} (not {@code cache}): unique across MQTT and Kafka, usable in file and metric names. */
    private static List<String> bridgeNames(ConfigReader r, String path, Map<String, String> seen) {
        List<String> names = new ArrayList<>();
        for (String name : r.blockNames(path)) {
            if (name.equals("cache")) {
                continue;
            }
            String at = path + "." + ConfigUtil.joinPath(name);
            if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
                throw new ConfigError(at, "a bridge name may hold 1 to 64 letters, digits, '_' and '-'");
            }
            String other = seen.putIfAbsent(name, at);
            if (other != null) {
                throw new ConfigError(at, "bridge name '" + name + "' is already used at " + other
                        + " (status topics and metrics name bridges by name)");
            }
            names.add(name);
        }
        return names;
    }

    // ------------------------------------------------------------------ bridges.<type>.cache

    private static CacheSettings cache(ConfigReader r, String p, List<String> notes) {
        if (r.has(p + ".enable") && !r.bool(p + ".enable", true)) {
            throw new ConfigError(p + ".enable", "the backlog cannot be turned off: it is what keeps bridged messages"
                    + " through outages; bound it with disk_cache_size and disk_cache_bytes");
        }
        noEffect(r, p + ".resend_interval", "the backlog is sent again at once on every reconnection", notes);
        FullPolicy fullPolicy = FullPolicy.fromConfig(r.choice(p + ".full_policy", "drop_oldest", "drop_oldest",
                "refuse_new"));
        FlushPolicy flush = FlushPolicy.fromConfig(r.choice(p + ".flush", "interval", "none", "interval", "always"));
        try {
            return new CacheSettings(r.path(p + ".mounted_file_path", DEFAULT_DIR),
                    r.integer(p + ".disk_cache_size", 102_400, 0, Long.MAX_VALUE),
                    r.bytes(p + ".disk_cache_bytes", 1L << 30, 1024, Long.MAX_VALUE),
                    fullPolicy, flush,
                    r.millis(p + ".flush_interval", 1000, 1, 3_600_000),
                    r.integer(p + ".flush_mem_threshold", Long.MAX_VALUE, 1, Long.MAX_VALUE));
        } catch (IllegalArgumentException e) {
            throw ConfigError.in(p, e);
        }
    }

    private static void noEffect(ConfigReader r, String path, String why, List<String> notes) {
        String value = r.string(path, null);
        if (value != null) {
            notes.add(path + " = " + value + " has no effect in Sluice: " + why);
        }
    }

    // ------------------------------------------------------------------ bridges.mqtt.<name>

    private static MqttBridgeSettings mqtt(ConfigReader r, String name, Path cacheDir, List<String> notes) {
        String p = "bridges.mqtt." + name;
        if (!r.bool(p + ".enable", true)) {
            r.acceptAllUnder(p);
            notes.add(p + " is disabled (enable = false): not started; its backlog stays on disk");
            return null;
        }
        refuse(r, p);
        ServerAddress server;
        try {
            server = ServerAddress.parse(r.requiredString(p + ".server"));
        } catch (IllegalArgumentException e) {
            throw new ConfigError(p + ".server", e.getMessage(), e);
        }
        int protoVer = (int) r.integer(p + ".proto_ver", 4, 3, 5);
        noEffect(r, p + ".max_parallel_processes", "messages from the remote are published on the bridge's event"
                + " loop as they arrive; there is no worker pool to size", notes);
        noEffect(r, p + ".resend_interval", "the backlog is sent again at once on every reconnection", notes);
        noEffect(r, p + ".resend_wait", "unacknowledged messages are resent on the next connection (MQTT 5 forbids"
                + " resending on a live one); cancel_timeout bounds the wait", notes);
        if (protoVer != 5 && (r.has(p + ".conn_properties") || r.has(p + ".sub_properties"))) {
            notes.add(p + ": conn_properties and sub_properties apply to MQTT 5 only; proto_ver is " + protoVer);
        }
        MqttBridgeSettings.ConnectProperties connect = connectProperties(r, p + ".conn_properties");
        int receiveMaximum = r.has(p + ".conn_properties.receive_maximum") ? connect.receiveMaximum()
                : (int) r.integer(p + ".max_recv_queue_len", connect.receiveMaximum(), 1, 65535);
        try {
            return new MqttBridgeSettings(name, server, protoVer,
                    r.string(p + ".clientid", defaultClientId(name, cacheDir)),
                    (int) r.seconds(p + ".keepalive", 60, 0, 65535),
                    r.bool(p + ".clean_start", true),
                    r.string(p + ".username", null),
                    r.string(p + ".password", null),
                    r.millis(p + ".backoff_max", 60_000, 100, 3_600_000),
                    forwards(r, p + ".forwards"),
                    subscriptions(r, p + ".subscription"),
                    (int) r.integer(p + ".max_send_queue_len", 0, 1, 65535),
                    r.millis(p + ".cancel_timeout", 10_000, 100, 3_600_000, "ms"),
                    r.bool(p + ".retry_qos_0", false),
                    r.bool(p + ".no_local_v4", true),
                    ssl(r, p + ".ssl", server.tls()),
                    will(r, p + ".will"),
                    new MqttBridgeSettings.ConnectProperties(connect.sessionExpirySeconds(), receiveMaximum,
                            connect.maximumPacketSize(), connect.topicAliasMaximum(), connect.requestProblemInfo(),
                            connect.requestResponseInfo(), connect.userProperties()),
                    (int) r.integer(p + ".sub_properties.identifier", 0, 1, 268_435_455),
                    userProperties(r, p + ".sub_properties.user_property"),
                    r.bool(p + ".tcp.nodelay", true),
                    r.bool(p + ".tcp.keepalive", true));
        } catch (IllegalArgumentException e) {
            throw ConfigError.in(p, e);
        }
    }

    /** Keys that make no sense here stop start-up with the reason instead of being silently ignored. */
    private static void refuse(ConfigReader r, String p) {
        for (String key : QUIC_KEYS) {
            if (r.has(p + "." + key)) {
                throw new ConfigError(p + "." + key, "QUIC bridging is not supported: Sluice bridges speak MQTT over"
                        + " TCP (mqtt-tcp://) or TLS (tls+mqtt-tcp://); remove the quic_* and hybrid_* keys");
            }
        }
        for (String key : TCP_TUNING) {
            if (r.has(p + ".tcp." + key)) {
                throw new ConfigError(p + ".tcp." + key, "not supported: Sluice sets tcp.nodelay and tcp.keepalive only");
            }
        }
        if (r.bool(p + ".transparent", false)) {
            throw new ConfigError(p + ".transparent", "transparent bridging (passing local SUBSCRIBEs to the remote)"
                    + " is not supported: list the remote topics in subscription");
        }
    }

    /**
     * The client id when none is configured: the bridge's name and a hash of this machine's name and
     * the backlog folder, so it stays the same across restarts (a persistent session finds itself
     * again) and differs between gateways that share a configuration file; at most 23 characters,
     * which every MQTT version accepts.
     */
    static String defaultClientId(String name, Path cacheDir) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        CRC32 crc = new CRC32();
        crc.update((host + "|" + cacheDir.toAbsolutePath().normalize()).getBytes(StandardCharsets.UTF_8));
        String hash = String.format("%08x", crc.getValue());
        return (name.length() > 14 ? name.substring(0, 14) : name) + "-" + hash;
    }

    private static List<ForwardRule> forwards(ConfigReader r, String path) {
        List<ForwardRule> rules = new ArrayList<>();
        for (ConfigReader f : r.objects(path)) {
            String local = f.requiredString("local_topic");
            String remote = requiredAllowingEmpty(f, "remote_topic", "\"\" keeps the local topic");
            int qos = (int) f.integer("qos", -1, 0, 2);
            int retain = retainOverride(f, "retain");
            String prefix = f.string("prefix", "");
            String suffix = f.string("suffix", "");
            f.rejectUnknownKeys();
            try {
                rules.add(new ForwardRule(local, remote, qos, retain, prefix, suffix));
            } catch (IllegalArgumentException e) {
                throw ConfigError.in(f.path(), e);
            }
        }
        return rules;
    }

    private static List<SubscriptionRule> subscriptions(ConfigReader r, String path) {
        List<SubscriptionRule> rules = new ArrayList<>();
        for (ConfigReader s : r.objects(path)) {
            if (s.has("stream_id")) {
                throw new ConfigError(s.pathOf("stream_id"), "is a QUIC stream; QUIC bridging is not supported");
            }
            String remote = s.requiredString("remote_topic");
            String local = requiredAllowingEmpty(s, "local_topic", "\"\" keeps the remote topic");
            if (!s.has("qos")) {
                throw new ConfigError(s.pathOf("qos"), "is required: the QoS of the subscription on the remote");
            }
            int qos = (int) s.integer("qos", 0, 0, 2);
            int retain = retainOverride(s, "retain");
            boolean retainAsPublished = flag(s, "retain_as_published");
            int retainHandling = (int) s.integer("retain_handling", 0, 0, 2);
            boolean noLocal = s.bool("nolocal", true);
            String prefix = s.string("prefix", "");
            String suffix = s.string("suffix", "");
            s.rejectUnknownKeys();
            try {
                rules.add(new SubscriptionRule(remote, local, qos, retain, retainAsPublished, retainHandling, noLocal,
                        prefix, suffix));
            } catch (IllegalArgumentException e) {
                throw ConfigError.in(s.path(), e);
            }
        }
        return rules;
    }

    private static String requiredAllowingEmpty(ConfigReader r, String key, String hint) {
        if (!r.has(key)) {
            throw new ConfigError(r.pathOf(key), "is required (" + hint + ")");
        }
        return r.string(key, "");
    }

    /** NanoMQ's {@code retain} of a rule: 0 or 1 (or false / true) sets the flag; 2, or nothing, keeps it. */
    private static int retainOverride(ConfigReader r, String key) {
        String value = r.string(key, null);
        if (value == null) {
            return -1;
        }
        return switch (value) {
            case "true", "1" -> 1;
            case "false", "0" -> 0;
            case "2" -> -1;
            default -> throw new ConfigError(r.pathOf(key), "must be false/0, true/1 or 2 (keep the message's flag),"
                    + " got '" + value + "'");
        };
    }

    /** A flag NanoMQ writes as 0/1 and others as false/true. */
    private static boolean flag(ConfigReader r, String key) {
        String value = r.string(key, "0");
        return switch (value) {
            case "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw new ConfigError(r.pathOf(key), "must be 0/false or 1/true, got '" + value + "'");
        };
    }

    private static MqttBridgeSettings.ConnectProperties connectProperties(ConfigReader r, String p) {
        MqttBridgeSettings.ConnectProperties d = MqttBridgeSettings.ConnectProperties.DEFAULTS;
        String problem = r.has(p + ".request_problem_information") ? p + ".request_problem_information"
                : p + ".request_problem_infomation";
        String response = r.has(p + ".request_response_information") ? p + ".request_response_information"
                : p + ".request_response_infomation";
        return new MqttBridgeSettings.ConnectProperties(
                r.integer(p + ".session_expiry_interval", d.sessionExpirySeconds(), 0, 0xFFFFFFFFL),
                (int) r.integer(p + ".receive_maximum", d.receiveMaximum(), 1, 65535),
                (int) r.bytes(p + ".maximum_packet_size", d.maximumPacketSize(), 1, 268_435_455),
                (int) r.integer(p + ".topic_alias_maximum", d.topicAliasMaximum(), 0, 65535),
                (int) r.integer(problem, d.requestProblemInfo(), 0, 1),
                (int) r.integer(response, d.requestResponseInfo(), 0, 1),
                userProperties(r, p + ".user_property"));
    }

    private static List<UserProperty> userProperties(ConfigReader r, String path) {
        List<UserProperty> properties = new ArrayList<>();
        r.block(path).forEach((key, value) -> properties.add(new UserProperty(key, String.valueOf(value))));
        return properties;
    }

    private static TlsClientSettings ssl(ConfigReader r, String p, boolean tlsServer) {
        if (!r.has(p) || !r.bool(p + ".enable", true)) {
            r.acceptAllUnder(p);
            return null;
        }
        if (!tlsServer) {
            throw new ConfigError(p, "is set but the server is not tls+mqtt-tcp://");
        }
        try {
            return new TlsClientSettings(r.file(p + ".cacertfile"), r.file(p + ".certfile"), r.file(p + ".keyfile"),
                    r.string(p + ".key_password", null), r.bool(p + ".verify_hostname", true));
        } catch (IllegalArgumentException e) {
            throw new ConfigError(p + ".keyfile", e.getMessage(), e);
        }
    }

    private static MqttBridgeSettings.Will will(ConfigReader r, String p) {
        if (!r.has(p)) {
            return null;
        }
        String q = p + ".properties";
        MessageProperties properties = new MessageProperties(
                (int) r.integer(q + ".payload_format_indicator", -1, 0, 1),
                r.integer(q + ".message_expiry_interval", -1, 0, 0xFFFFFFFFL),
                emptyAsNull(r.string(q + ".content_type", null)),
                emptyAsNull(r.string(q + ".response_topic", null)),
                bytesOrNull(r.string(q + ".correlation_data", null)),
                userProperties(r, q + ".user_property"));
        return new MqttBridgeSettings.Will(r.requiredString(p + ".topic"),
                r.string(p + ".payload", "").getBytes(StandardCharsets.UTF_8),
                (int) r.integer(p + ".qos", 0, 0, 2), r.bool(p + ".retain", false),
                r.integer(q + ".will_delay_interval", 0, 0, 0xFFFFFFFFL), properties);
    }

    private static String emptyAsNull(String text) {
        return text == null || text.isEmpty() ? null : text;
    }

    private static byte[] bytesOrNull(String text) {
        return text == null || text.isEmpty() ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ bridges.kafka.<name>

    private static KafkaBridgeSettings kafka(ConfigReader r, String name) {
        String p = "bridges.kafka." + name;
        if (!r.bool(p + ".enable", true)) {
            r.acceptAllUnder(p);
            return null;
        }
        List<KafkaBridgeSettings.KafkaForward> forwards = new ArrayList<>();
        for (ConfigReader f : r.objects(p + ".forwards")) {
            String local = f.requiredString("local_topic");
            String topic = f.requiredString("kafka_topic");
            KafkaBridgeSettings.KeySource key = KafkaBridgeSettings.KeySource.fromConfig(
                    f.choice("key", "topic", "topic", "clientid", "none"));
            f.rejectUnknownKeys();
            try {
                forwards.add(new KafkaBridgeSettings.KafkaForward(local, topic, key));
            } catch (IllegalArgumentException e) {
                throw ConfigError.in(f.path(), e);
            }
        }
        try {
            return new KafkaBridgeSettings(name, r.requiredString(p + ".bootstrap_hosts"), forwards,
                    r.choice(p + ".acks", "all", "all", "-1", "1", "0"),
                    r.choice(p + ".compression", "none", "none", "gzip", "snappy", "lz4", "zstd"),
                    r.millis(p + ".linger", 5, 0, 60_000, "ms"),
                    (int) r.bytes(p + ".batch_size", 16_384, 1, 64 << 20),
                    r.string(p + ".clientid", "sluice-" + name),
                    r.millis(p + ".backoff_max", 60_000, 100, 3_600_000),
                    r.millis(p + ".cancel_timeout", 30_000, 1000, 3_600_000, "ms"),
                    (int) r.integer(p + ".max_inflight", 10_000, 1, 1_000_000),
                    security(r, p + ".security"));
        } catch (IllegalArgumentException e) {
            throw ConfigError.in(p, e);
        }
    }

    private static KafkaBridgeSettings.Security security(ConfigReader r, String p) {
        if (!r.has(p)) {
            return null;
        }
        boolean sasl = r.has(p + ".sasl");
        boolean tls = r.has(p + ".ssl");
        return new KafkaBridgeSettings.Security(
                sasl ? r.choice(p + ".sasl.mechanism", "PLAIN", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512") : null,
                sasl ? r.requiredString(p + ".sasl.username") : null,
                sasl ? r.requiredString(p + ".sasl.password") : null,
                tls,
                tls ? r.file(p + ".ssl.cacertfile") : null,
                tls ? r.file(p + ".ssl.certfile") : null,
                tls ? r.file(p + ".ssl.keyfile") : null,
                tls ? r.string(p + ".ssl.key_password", null) : null,
                !tls || r.bool(p + ".ssl.verify_hostname", true));
    }
}
