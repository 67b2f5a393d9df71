package io.sluice.server;

import com.typesafe.config.ConfigException;
import io.sluice.broker.MqttSettings;
import io.sluice.parquet.ParquetSettings;
import io.sluice.ringbus.RingSettings;
import io.sluice.server.config.ConfigError;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.SluiceConfig;
import io.sluice.settings.InvalidSettingException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    private SluiceConfig load(String hocon) throws IOException {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, hocon);
        return ConfigLoader.load(file);
    }

    private ConfigError error(String hocon) {
        return assertThrows(ConfigError.class, () -> load(hocon));
    }

    @Test
    void anEmptyFileGivesTheDocumentedDefaults() throws IOException {
        SluiceConfig config = load("");
        assertTrue(config.mqtt().nodeId().startsWith("sluice-"), "a node id made from the host: " + config.mqtt().nodeId());
        assertEquals(MqttSettings.builder().nodeId(config.mqtt().nodeId()).build(), config.mqtt());
        assertEquals(1883, config.listeners().get(0).bind().getPort());
        assertEquals("info", config.logLevel());
    }

    @Test
    void everyMqttKeyIsReadWithItsUnits() throws IOException {
        MqttSettings mqtt = load("""
                mqtt {
                  max_packet_size = 10KB
                  max_mqueue_len = 10
                  max_mqueue_bytes = 2MB
                  queue_qos0 = false
                  max_inflight_window = 32
                  receive_maximum = 64
                  topic_alias_maximum = 0
                  max_keepalive = 5m
                  keepalive_multiplier = 1.25
                  retry_interval = 500ms
                  session_expiry_interval = 1d
                  max_session_expiry_interval = 3600
                  connect_timeout = 2s
                  max_sessions_per_address = 3
                }
                """).mqtt();
        assertEquals(10 * 1024, mqtt.maxPacketSize());
        assertEquals(10, mqtt.maxMqueueLen());
        assertEquals(2 * 1024 * 1024, mqtt.maxMqueueBytes());
        assertEquals(false, mqtt.queueQos0());
        assertEquals(32, mqtt.maxInflightWindow());
        assertEquals(64, mqtt.receiveMaximum());
        assertEquals(0, mqtt.topicAliasMaximum());
        assertEquals(300, mqtt.maxKeepalive());
        assertEquals(1.25, mqtt.keepaliveMultiplier());
        assertEquals(500, mqtt.retryIntervalMillis());
        assertEquals(86_400, mqtt.sessionExpiryInterval());
        assertEquals(3600, mqtt.maxSessionExpiryInterval());
        assertEquals(2000, mqtt.connectTimeoutMillis());
        assertEquals(3, mqtt.maxSessionsPerAddress());
    }

    @Test
    void aTypoIsAnUnknownKeyNamedWithItsPath() {
        ConfigError e = error("mqtt { max_packt_size = 1KB }");
        assertEquals("mqtt.max_packt_size", e.path());
        assertTrue(e.getMessage().contains("unknown key"));
    }

    @Test
    void wrongTypesAndImpossibleValuesNameTheKey() {
        assertEquals("mqtt.queue_qos0", error("mqtt.queue_qos0 = maybe").path());
        assertEquals("mqtt.max_inflight_window", error("mqtt.max_inflight_window = 0").path());
        assertEquals("mqtt.max_packet_size", error("mqtt.max_packet_size = 10XB").path());
        assertEquals("mqtt.retry_interval", error("mqtt.retry_interval = soon").path());
        assertEquals("mqtt.max_sessions_per_address", error("mqtt.max_sessions_per_address = -1").path());
        assertEquals("listeners.tcp.bind", error("listeners.tcp.bind = \"nohostport\"").path());
        assertEquals("listeners.tcp.bind", error("listeners.tcp.bind = \"0.0.0.0:70000\"").path());
        assertEquals("log.level", error("log.level = loud").path());
    }

    @Test
    void aSettingsClassErrorIsReportedUnderItsBlockWithItsCause() {
        ConfigError ring = error("""
                exchange_client.a { exchange { name = t, topic = "t/#", streamType = 0, ringbus { cap = 0 } } }
                """);
        assertEquals("exchange_client.a.exchange.ringbus.cap: must be 1 to " + RingSettings.MAX_CAP + " messages, was 0",
                ring.getMessage());
        assertEquals("ringbus.cap", assertInstanceOf(InvalidSettingException.class, ring.getCause()).key(),
                "the settings class's own error, relative to the exchange block, is the cause");

        ConfigError parquet = error("parquet { file_count = 0 }");
        assertEquals("parquet.file_count: must be at least 1, was 0", parquet.getMessage());
        assertInstanceOf(InvalidSettingException.class, parquet.getCause());

        ConfigError query = error("""
                exchange_client.q { exchange_url = "tcp://127.0.0.1:99999", exchange { name = q, topic = "q/#" } }
                """);
        assertEquals("exchange_client.q.exchange_url", query.path());
        assertInstanceOf(InvalidSettingException.class, query.getCause());

        ConfigError rate = error("mqtt.messages_rate = \"fast\"");
        assertEquals("mqtt.messages_rate", rate.path());
        assertInstanceOf(IllegalArgumentException.class, rate.getCause(), "the rate parser's reason");
    }

    @Test
    void aSyntaxErrorNamesTheFile() {
        ConfigError e = error("mqtt { max_packet_size = ");
        assertTrue(e.getMessage().contains("sluice.conf"), e.getMessage());
        assertInstanceOf(ConfigException.class, e.getCause(), "the parser's error stays the cause");
    }

    @Test
    void aNanoMqFileLoadsUnchanged() throws IOException {
        SluiceConfig config = load("""
                # nanomq.conf as NanoMQ ships it
                mqtt {
                    property_size = 32
                    max_packet_size = 260MB
                    max_mqueue_len = 2048
                    retry_interval = 10s
                    keepalive_multiplier = 1.25
                    max_inflight_window = 2048
                    max_awaiting_rel = 10s
                    await_rel_timeout = 10s
                }
                listeners.tcp {
                    bind = "0.0.0.0:1883"
                }
                system {
                    daemon = false
                    num_taskq_thread = 0
                    max_taskq_thread = 0
                    parallel = 0
                }
                log {
                    to = [console]
                    level = warn
                    dir = "/tmp"
                    file = "nanomq.log"
                    rotation { size = 10MB, count = 5 }
                }
                """);
        assertEquals(268_435_455, config.mqtt().maxPacketSize(), "NanoMQ's 260MB means MQTT's maximum");
        assertEquals("warn", config.logLevel());
    }

    @Test
    void parquetRollIntervalAndRetentionAreDurationsWithDefaultsAndPerExchangeOverrides() throws IOException {
        SluiceConfig config = load("""
                parquet { file_roll_interval = 5m, retention = 0 }
                exchange_client.a { exchange_url = "tcp://127.0.0.1:10001", exchange { name = a, topic = "a/#", parquet { retention = 2d } } }
                exchange_client.b { exchange_url = "tcp://127.0.0.1:10002", exchange { name = b, topic = "b/#" } }
                """);
        ParquetSettings a = config.exchanges().get(0).exchange().parquet();
        ParquetSettings b = config.exchanges().get(1).exchange().parquet();
        assertEquals(Duration.ofMinutes(5), a.fileRollInterval());
        assertEquals(Duration.ofDays(2), a.retention());
        assertEquals(Duration.ZERO, b.retention(), "0 = no age limit");
        ParquetSettings defaults = load("exchange_client.c { exchange { name = c, topic = \"c/#\" } }").exchanges().get(0)
                .exchange().parquet();
        assertEquals(Duration.ofMinutes(10), defaults.fileRollInterval());
        assertEquals(Duration.ofDays(7), defaults.retention());
        assertEquals(1200, defaults.fileCount());
        assertEquals("parquet.file_roll_interval", error("parquet { file_roll_interval = 10ms }").getCause() instanceof
                InvalidSettingException e ? e.key() : "not an InvalidSettingException");
        assertEquals("parquet.retention", error("parquet { retention = soon }").path());
    }

    @Test
    void everyShippedConfigurationFileIsValid() throws IOException {
        try (var files = Files.walk(Path.of("..", "conf"))) {
            var confs = files.filter(p -> p.toString().endsWith(".conf")).toList();
            assertTrue(confs.size() >= 1, "conf/ holds at least sluice.conf");
            for (Path conf : confs) {
                ConfigLoader.load(conf);
            }
        }
    }
}
