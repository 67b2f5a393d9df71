package io.sluice.server;

import io.sluice.broker.MqttSettings;
import io.sluice.net.limits.Rate;
import io.sluice.broker.security.Authorizer;
import io.sluice.server.config.ConfigError;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.ListenerConfig;
import io.sluice.server.config.SluiceConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The keys of listeners, limits, auth and monitoring, read and validated with the key named in every error. */
class ListenerAndAuthConfigTest {
    @TempDir
    Path dir;

    @BeforeEach
    void files() throws IOException {
        for (String name : List.of("key.pem", "cert.pem", "ca.pem", "passwd", "acl.conf")) {
            Files.writeString(dir.resolve(name), "");
        }
    }

    private SluiceConfig load(String hocon) throws IOException {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, hocon);
        return ConfigLoader.load(file);
    }

    private ConfigError error(String hocon) {
        return assertThrows(ConfigError.class, () -> load(hocon));
    }

    @Test
    void everyListenerIsReadWithItsLimitsAndTlsFilesRelativeToTheConfigFile() throws IOException {
        SluiceConfig config = load("""
                listeners.tcp { bind = "0.0.0.0:1883", max_connections = 100, max_conn_rate = 50 }
                listeners.ssl {
                  bind = "0.0.0.0:8883"
                  keyfile = "key.pem"
                  certfile = "cert.pem"
                  cacertfile = "ca.pem"
                  key_password = "pw"
                  verify_peer = true
                  fail_if_no_peer_cert = true
                  peer_cert_as_username = true
                  max_conn_rate = "10/s"
                }
                listeners.ws.bind = "0.0.0.0:8083/mqtt"
                listeners.wss.bind = "0.0.0.0:8086/ws/mqtt"
                """);
        List<ListenerConfig> listeners = config.listeners();
        assertEquals(List.of("tcp", "ssl", "ws", "wss"), listeners.stream().map(ListenerConfig::name).toList());
        ListenerConfig tcp = listeners.get(0);
        assertEquals(100, tcp.maxConnections());
        assertEquals(Rate.perSecond(50), tcp.maxConnRate());
        ListenerConfig ssl = listeners.get(1);
        assertEquals(dir.resolve("key.pem"), ssl.tls().keyFile());
        assertEquals(dir.resolve("ca.pem"), ssl.tls().caCertFile());
        assertEquals("pw", ssl.tls().keyPassword());
        assertTrue(ssl.tls().verifyPeer() && ssl.tls().failIfNoPeerCert() && ssl.tls().peerCertAsUsername());
        assertEquals("/mqtt", listeners.get(2).webSocketPath());
        assertNull(listeners.get(2).tls());
        assertEquals("/ws/mqtt", listeners.get(3).webSocketPath());
        assertEquals(ssl.tls(), listeners.get(3).tls(), "wss shares the TLS files of listeners.ssl");
        assertEquals(8086, listeners.get(3).bind().getPort());
    }

    @Test
    void limitsAuthAndMonitoringAreRead() throws IOException {
        SluiceConfig config = load("""
                mqtt {
                  max_connections = 1000
                  max_subscriptions = 50
                  max_topic_levels = 8
                  messages_rate = "20/s"
                  bytes_rate = "1MB/s"
                }
                auth {
                  allow_anonymous = false
                  no_match = deny
                  deny_action = disconnect
                  password_file = "passwd"
                  acl_file = "acl.conf"
                }
                system.sys_interval = 30s
                http_server.port = 8081
                """);
        MqttSettings mqtt = config.mqtt();
        assertEquals(1000, mqtt.maxConnections());
        assertEquals(50, mqtt.maxSubscriptions());
        assertEquals(8, mqtt.maxTopicLevels());
        assertEquals(Rate.perSecond(20), mqtt.messagesRate());
        assertEquals(Rate.perSecond(1 << 20), mqtt.bytesRate());
        assertFalse(config.auth().allowAnonymous());
        assertFalse(config.auth().noMatchAllows());
        assertEquals(Authorizer.DenyAction.DISCONNECT, config.auth().denyAction());
        assertEquals(dir.resolve("passwd"), config.auth().passwordFile());
        assertEquals(30_000, config.monitoring().sysIntervalMillis());
        assertEquals(8081, config.monitoring().httpPort());
    }

    @Test
    void withoutTheseBlocksEverythingIsOpenAndUnlimited() throws IOException {
        SluiceConfig config = load("");
        assertTrue(config.auth().allowAnonymous());
        assertTrue(config.auth().noMatchAllows());
        assertNull(config.auth().aclFile());
        assertTrue(config.mqtt().messagesRate().isUnlimited());
        assertEquals(128, config.mqtt().maxTopicLevels());
        assertFalse(config.monitoring().httpServer());
        assertEquals(10_000, config.monitoring().sysIntervalMillis());
    }

    @Test
    void mistakesNameTheirKey() {
        assertEquals("auth.password_file", error("auth.password_file = \"missing\"").path());
        assertEquals("auth.no_match", error("auth.no_match = maybe").path());
        assertEquals("auth.deny_action", error("auth.deny_action = kick").path());
        assertEquals("mqtt.messages_rate", error("mqtt.messages_rate = \"fast\"").path());
        assertEquals("mqtt.bytes_rate", error("mqtt.bytes_rate = \"1XB/s\"").path());
        assertEquals("listeners.tcp.max_conn_rate", error("listeners.tcp.max_conn_rate = \"1MB/s\"").path());
        assertEquals("listeners.ssl.keyfile", error("listeners.ssl.certfile = \"cert.pem\"").path());
        assertEquals("listeners.ssl.cacertfile", error("""
                listeners.ssl { keyfile = "key.pem", certfile = "cert.pem", verify_peer = true }
                """).path());
        assertEquals("listeners.ssl.peer_cert_as_username", error("""
                listeners.ssl { keyfile = "key.pem", certfile = "cert.pem", peer_cert_as_username = true }
                """).path());
        assertEquals("listeners.wss", error("listeners.wss.bind = \"0.0.0.0:8086/mqtt\"").path());
        assertEquals("listeners.ws.bind", error("listeners.ws.bind = \"0.0.0.0/mqtt\"").path());
        assertEquals("system.sys_interval", error("system.sys_interval = 10ms").path());
        assertEquals("http_server.port", error("http_server.port = 70000").path());
        assertEquals("http_server.password", error("http_server { port = 8081, username = admin }").path());
        assertEquals("http_server.users", error("http_server { users = [\"ops\"] }").path());
        assertEquals("http_server.auth_type", error("http_server { auth_type = jwt }").path());
        assertEquals("http_server.ssl", error("http_server { ssl = true }").path());
        assertEquals("http_server.max_body", error("http_server { max_body = 10 }").path());
    }
}
