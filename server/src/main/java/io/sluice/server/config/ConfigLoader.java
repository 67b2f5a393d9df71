package io.sluice.server.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import io.sluice.broker.MqttSettings;
import io.sluice.net.limits.Rate;
import io.sluice.broker.persistence.PersistenceSettings;
import io.sluice.broker.security.Authorizer;
import io.sluice.net.tls.TlsSettings;
import io.sluice.storage.FlushPolicy;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads {@code sluice.conf} into a {@link SluiceConfig}: HOCON, with NanoMQ's key names where
 * NanoMQ has the setting (see the configuration reference in README.md). Any problem becomes a
 * {@link ConfigError} naming the key.
 */
public final class ConfigLoader {
    /** The largest packet MQTT can express: a four-byte Remaining Length. */
    private static final long MAX_PACKET = 268_435_455;

    private ConfigLoader() {
    }

    /** Parses and validates {@code file}. */
    public static SluiceConfig load(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigError(file.toString(), "configuration file not found");
        }
        Config config;
        try {
            File source = file.toFile();
            config = ConfigFactory.parseFile(source, ConfigParseOptions.defaults()
                    .setSyntax(ConfigSyntax.CONF).setAllowMissing(false)).resolve();
        } catch (ConfigException e) {
            throw new ConfigError(file.toString(), e.getMessage(), e);
        }
        return read(new ConfigReader(config, file.toAbsolutePath().getParent()));
    }

    /** Reads every section, then rejects keys no section knows. */
    static SluiceConfig read(ConfigReader r) {
        List<ListenerConfig> listeners = listeners(r);
        BridgesConfig bridges = BridgesConfig.read(r);
        MqttSettings mqtt = mqtt(r, bridges.nodeId());
        int ioThreads = (int) r.integer("system.num_taskq_thread", 0, 0, 1024);
        r.tolerate("system.daemon", "system.max_taskq_thread", "system.parallel");
        String logLevel = r.choice("log.level", "info", "trace", "debug", "info", "warn", "error");
        r.tolerate("log.to", "log.dir", "log.file", "log.rotation.size", "log.rotation.count");
        AuthConfig auth = auth(r);
        MonitoringConfig monitoring = monitoring(r, auth);
        PersistenceSettings persistence = persistence(r);
        List<ExchangeConfig> exchanges = ExchangeConfig.read(r);
        Path pluginsDir = r.path("plugins.dir", "plugins");
        StreamsConfig streams = StreamsConfig.read(r);
        KafkaConfig kafka = KafkaConfig.read(r, r.has("listeners.ssl") ? tls(r) : null);
        r.rejectUnknownKeys();
        return new SluiceConfig(listeners, mqtt, ioThreads, logLevel, auth, monitoring, persistence, exchanges,
                pluginsDir, streams, kafka, bridges);
    }

    /** {@code persistence { enabled, dir, flush, flush_interval }}; a relative dir is relative to the working directory. */
    private static PersistenceSettings persistence(ConfigReader r) {
        boolean enabled = r.bool("persistence.enabled", true);
        Path dir = r.path("persistence.dir", "data/state");
        FlushPolicy flush = FlushPolicy.fromConfig(r.choice("persistence.flush", "interval", "none", "interval", "always"));
        long interval = r.millis("persistence.flush_interval", 1000, 1, 3_600_000);
        return new PersistenceSettings(enabled, dir, flush, interval);
    }

    /**
     * {@code listeners.tcp}, {@code .ssl}, {@code .ws} and {@code .wss}; without any of them, plain
     * TCP on 1883. {@code ssl} and {@code wss} share the TLS files of {@code listeners.ssl}.
     */
    private static List<ListenerConfig> listeners(ConfigReader r) {
        List<ListenerConfig> listeners = new ArrayList<>();
        // listeners.kafka alone does not turn MQTT off: without an MQTT listener block, plain TCP on 1883.
        boolean none = !(r.has("listeners.tcp") || r.has("listeners.ssl") || r.has("listeners.ws") || r.has("listeners.wss"));
        if (none || r.has("listeners.tcp")) {
            listeners.add(listener(r, "tcp", r.hostPort("listeners.tcp.bind", "0.0.0.0:1883"), null, null));
        }
        TlsSettings tls = r.has("listeners.ssl") ? tls(r) : null;
        if (tls != null) {
            listeners.add(listener(r, "ssl", r.hostPort("listeners.ssl.bind", "0.0.0.0:8883"), null, tls));
        }
        if (r.has("listeners.ws")) {
            listeners.add(webSocket(r, "ws", "0.0.0.0:8083/mqtt", null));
        }
        if (r.has("listeners.wss")) {
            if (tls == null) {
                throw new ConfigError("listeners.wss", "takes its keyfile and certfile from listeners.ssl,"
                        + " which is not configured");
            }
            listeners.add(webSocket(r, "wss", "0.0.0.0:8086/mqtt", tls));
        }
        return listeners;
    }

    private static ListenerConfig webSocket(ConfigReader r, String name, String fallback, TlsSettings tls) {
        String key = "listeners." + name + ".bind";
        String bind = r.string(key, fallback);
        int slash = bind.indexOf('/');
        String path = slash < 0 ? "/mqtt" : bind.substring(slash);
        InetSocketAddress address = r.parseHostPort(key, slash < 0 ? bind : bind.substring(0, slash));
        return listener(r, name, address, path, tls);
    }

    private static ListenerConfig listener(ConfigReader r, String name, InetSocketAddress bind, String path,
                                           TlsSettings tls) {
        String prefix = "listeners." + name + ".";
        int maxConnections = (int) r.integer(prefix + "max_connections", 0, 0, Integer.MAX_VALUE);
        Rate maxConnRate = r.rate(prefix + "max_conn_rate", Rate.UNLIMITED, false);
        return new ListenerConfig(name, bind, path, tls, maxConnections, maxConnRate);
    }

    private static TlsSettings tls(ConfigReader r) {
        Path key = r.file("listeners.ssl.keyfile");
        Path cert = r.file("listeners.ssl.certfile");
        Path ca = r.file("listeners.ssl.cacertfile");
        String password = r.string("listeners.ssl.key_password", null);
        boolean verifyPeer = r.bool("listeners.ssl.verify_peer", false);
        boolean failIfNoPeerCert = r.bool("listeners.ssl.fail_if_no_peer_cert", false);
        boolean peerCertAsUsername = r.bool("listeners.ssl.peer_cert_as_username", false);
        if (key == null || cert == null) {
            throw new ConfigError(key == null ? "listeners.ssl.keyfile" : "listeners.ssl.certfile",
                    "is required for a TLS listener (a PEM file)");
        }
        if (verifyPeer && ca == null) {
            throw new ConfigError("listeners.ssl.cacertfile", "is required with verify_peer = true: the CA that"
                    + " client certificates must chain to");
        }
        if (peerCertAsUsername && !verifyPeer) {
            throw new ConfigError("listeners.ssl.peer_cert_as_username", "needs verify_peer = true: an unverified"
                    + " certificate must not name the user");
        }
        return new TlsSettings(key, cert, ca, password, verifyPeer, failIfNoPeerCert, peerCertAsUsername);
    }

    private static AuthConfig auth(ConfigReader r) {
        AuthConfig d = AuthConfig.OPEN;
        boolean allowAnonymous = r.bool("auth.allow_anonymous", d.allowAnonymous());
        boolean noMatchAllows = r.choice("auth.no_match", "allow", "allow", "deny").equals("allow");
        Authorizer.DenyAction denyAction = Authorizer.DenyAction.valueOf(
                r.choice("auth.deny_action", "ignore", "ignore", "disconnect").toUpperCase(Locale.ROOT));
        return new AuthConfig(allowAnonymous, noMatchAllows, denyAction, r.file("auth.password_file"),
                r.file("auth.acl_file"));
    }

    private static MonitoringConfig monitoring(ConfigReader r, AuthConfig auth) {
        MonitoringConfig d = MonitoringConfig.DEFAULTS;
        long sysInterval = r.millis("system.sys_interval", d.sysIntervalMillis(), 0, 86_400_000L);
        if (sysInterval > 0 && sysInterval < 100) {
            throw new ConfigError("system.sys_interval", "must be 0 (off) or at least 100ms, got " + sysInterval + " ms");
        }
        HttpServerConfig http = HttpServerConfig.read(r, auth.passwordFile(), r.has("listeners.ssl") ? tls(r) : null);
        return new MonitoringConfig(sysInterval, http);
    }

    private static MqttSettings mqtt(ConfigReader r, String nodeId) {
        MqttSettings d = MqttSettings.defaults();
        r.tolerate("mqtt.property_size", "mqtt.max_awaiting_rel", "mqtt.await_rel_timeout");
        return MqttSettings.builder()
                // NanoMQ documents sizes up to 260MB; beyond the protocol's 268435455 bytes they mean "the maximum".
                .maxPacketSize((int) Math.min(MAX_PACKET,
                        r.bytes("mqtt.max_packet_size", d.maxPacketSize(), 64, Long.MAX_VALUE)))
                .maxMqueueLen((int) r.integer("mqtt.max_mqueue_len", d.maxMqueueLen(), 0, Integer.MAX_VALUE))
                .maxMqueueBytes(r.bytes("mqtt.max_mqueue_bytes", d.maxMqueueBytes(), 0, Long.MAX_VALUE))
                .queueQos0(r.bool("mqtt.queue_qos0", d.queueQos0()))
                .maxInflightWindow((int) r.integer("mqtt.max_inflight_window", d.maxInflightWindow(), 1, 65535))
                .receiveMaximum((int) r.integer("mqtt.receive_maximum", d.receiveMaximum(), 1, 65535))
                .topicAliasMaximum((int) r.integer("mqtt.topic_alias_maximum", d.topicAliasMaximum(), 0, 65535))
                .maxKeepalive((int) r.seconds("mqtt.max_keepalive", d.maxKeepalive(), 1, 65535))
                .keepaliveMultiplier(r.decimal("mqtt.keepalive_multiplier", d.keepaliveMultiplier(), 1.0, 10.0))
                .retryIntervalMillis(r.millis("mqtt.retry_interval", d.retryIntervalMillis(), 0, Long.MAX_VALUE))
                .sessionExpiryInterval(r.seconds("mqtt.session_expiry_interval", d.sessionExpiryInterval(),
                        0, 0xFFFFFFFFL))
                .maxSessionExpiryInterval(r.seconds("mqtt.max_session_expiry_interval",
                        d.maxSessionExpiryInterval(), 0, 0xFFFFFFFFL))
                .connectTimeoutMillis(r.millis("mqtt.connect_timeout", d.connectTimeoutMillis(), 100, 3_600_000))
                .maxConnections((int) r.integer("mqtt.max_connections", d.maxConnections(), 0, Integer.MAX_VALUE))
                .maxSubscriptions((int) r.integer("mqtt.max_subscriptions", d.maxSubscriptions(), 0,
                        Integer.MAX_VALUE))
                .maxTopicLevels((int) r.integer("mqtt.max_topic_levels", d.maxTopicLevels(), 0, 65535))
                .messagesRate(r.rate("mqtt.messages_rate", d.messagesRate(), false))
                .bytesRate(r.rate("mqtt.bytes_rate", d.bytesRate(), true))
                .nodeId(nodeId)
                .maxSessions((int) r.integer("mqtt.max_sessions", d.maxSessions(), 0, Integer.MAX_VALUE))
                .maxSessionsPerAddress((int) r.integer("mqtt.max_sessions_per_address", d.maxSessionsPerAddress(), 0,
                        Integer.MAX_VALUE))
                .maxQueuedBytes(r.bytes("mqtt.max_queued_bytes", d.maxQueuedBytes(), 0, Long.MAX_VALUE))
                .build();
    }
}
