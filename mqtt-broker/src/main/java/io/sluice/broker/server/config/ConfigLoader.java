package io.sluice.broker.server.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import io.sluice.broker.MqttSettings;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
            throw new ConfigError(file.toString(), e.getMessage());
        }
        return read(new ConfigReader(config));
    }

    /** Reads every section, then rejects keys no section knows. */
    static SluiceConfig read(ConfigReader r) {
        List<ListenerConfig> listeners = listeners(r);
        MqttSettings mqtt = mqtt(r);
        int ioThreads = (int) r.integer("system.num_taskq_thread", 0, 0, 1024);
        r.tolerate("system.daemon", "system.max_taskq_thread", "system.parallel");
        String logLevel = r.choice("log.level", "info", "trace", "debug", "info", "warn", "error");
        r.tolerate("log.to", "log.dir", "log.file", "log.rotation.size", "log.rotation.count");
        r.rejectUnknownKeys();
        return new SluiceConfig(listeners, mqtt, ioThreads, logLevel);
    }

    private static List<ListenerConfig> listeners(ConfigReader r) {
        List<ListenerConfig> listeners = new ArrayList<>();
        if (!r.has("listeners") || r.has("listeners.tcp")) {
            listeners.add(new ListenerConfig("tcp", r.hostPort("listeners.tcp.bind", "0.0.0.0:1883")));
        }
        return listeners;
    }

    private static MqttSettings mqtt(ConfigReader r) {
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
                .build();
    }
}
