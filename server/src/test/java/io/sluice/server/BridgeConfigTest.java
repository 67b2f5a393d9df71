package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.sluice.bridges.FullPolicy;
import io.sluice.bridges.kafka.KafkaBridgeSettings;
import io.sluice.bridges.mqtt.ForwardRule;
import io.sluice.bridges.mqtt.MqttBridgeSettings;
import io.sluice.bridges.mqtt.SubscriptionRule;
import io.sluice.server.config.BridgesConfig;
import io.sluice.server.config.ConfigError;
import io.sluice.server.config.ConfigLoader;
import io.sluice.storage.FlushPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code bridges} section: NanoMQ's blocks load unchanged; every error names its key and says why. */
class BridgeConfigTest {
    @TempDir
    Path dir;

    private BridgesConfig load(String hocon) throws IOException {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, hocon);
        return ConfigLoader.load(file).bridges();
    }

    private ConfigError error(String hocon) {
        return assertThrows(ConfigError.class, () -> load(hocon));
    }

    /** The "MQTT over TCP Bridge" example of NanoMQ's configuration reference, as published (bridges.md). */
    private static final String NANOMQ_EXAMPLE = """
            bridges.mqtt.emqx1 = {
              server = "mqtt-tcp://127.0.0.1:1883"    # MQTT server address
              proto_ver = 4                           # MQTT protocol version
              clientid = "bridge_client"              # Client ID for the bridge
              keepalive = "60s"                       # Ping interval for the bridge
              clean_start = false                     # Clean start flag for the bridge
              username = "username"                   # Username for the bridge
              password = "passwd"                     # Password for the bridge
              will = {                                # Will properties
              	topic = "will_topic"                  # Will topic
              	qos = 1                               # Will QoS
              	retain = false                        # Will payload retain flag
              	payload = "will_message"              # Will payload
              	properties = {                        # Will properties
                	payload_format_indicator = 0
                	message_expiry_interval = 0
                	content_type = ""
                	response_topic = ""
                	correlation_data = ""
                	will_delay_interval = 0
                	user_property = {
                  	key1 = "value1"
                  	key2 = "value2"
                	}
              	}
              }
              forwards = [                            # Topics that need to be forwarded to the remote MQTT server
                {
                  remote_topic = "fwd/topic1"
                  local_topic = "topic1"
                  suffix = "/emqx"
                },
                {
                  remote_topic = "fwd/topic2"
                  local_topic = "topic2"
                  prefix = "emqx/"
                }
              ]
              subscription = [                        # Topics that need to be subscribed from the remote MQTT server
                {
                  remote_topic = "cmd/topic1"
                  local_topic = "topic3"
                  qos = 1
                  retain = 2                          # flag to override retain flag
                  suffix = "/emqx"
                },
                {
                  remote_topic = "cmd/topic2"
                  local_topic = "topic4"
                  qos = 2
                }
              ]
              max_parallel_processes = 2              # Maximum number of parallel processes for handling outstanding requests
              max_send_queue_len = 32                 # Maximum number of message send queue length
              max_recv_queue_len = 128                # Maximum number of message receive queue length
            }

            bridges.mqtt.cache {
                disk_cache_size = 102400   # Max message limitation for caching
                mounted_file_path="/tmp/"  # Mounted file path
                flush_mem_threshold = 100  # The threshold of flushing messages to flash
            }
            """;

    @Test
    void nanoMqsExampleBridgeBlockLoadsUnchanged() throws IOException {
        BridgesConfig config = load(NANOMQ_EXAMPLE);
        MqttBridgeSettings bridge = config.mqtt().get(0);
        assertEquals("emqx1", bridge.name());
        assertEquals("mqtt-tcp://127.0.0.1:1883", bridge.server().toString());
        assertEquals(4, bridge.protoVer());
        assertEquals("bridge_client", bridge.clientId());
        assertEquals(60, bridge.keepaliveSeconds());
        assertFalse(bridge.cleanStart());
        assertEquals("username", bridge.username());
        assertEquals("will_topic", bridge.will().topic());
        assertEquals(2, bridge.will().properties().userProperties().size());
        assertEquals(List.of(new ForwardRule("topic1", "fwd/topic1", -1, -1, "", "/emqx"),
                new ForwardRule("topic2", "fwd/topic2", -1, -1, "emqx/", "")), bridge.forwards());
        assertEquals("fwd/topic1/emqx", bridge.forwards().get(0).mapping().map("topic1"));
        assertEquals("emqx/fwd/topic2", bridge.forwards().get(1).mapping().map("topic2"));
        SubscriptionRule first = bridge.subscriptions().get(0);
        assertEquals(-1, first.retain(), "retain = 2 keeps the flag as received");
        assertEquals("topic3/emqx", first.mapping().map("cmd/topic1"));
        assertTrue(first.noLocal(), "No Local by default");
        assertEquals(32, bridge.maxSendQueueLen());
        assertEquals(128, bridge.connect().receiveMaximum(), "max_recv_queue_len is the Receive Maximum asked for");
        assertTrue(bridge.bridgeBit(), "no_local_v4 defaults to true, as in NanoMQ");
        assertEquals(102_400, config.mqttCache().maxMessages());
        assertEquals(Path.of("/tmp/"), config.mqttCache().dir());
        assertEquals(100, config.mqttCache().flushMessages(), "flush_mem_threshold: fsync every 100 messages");
        assertTrue(config.notes().stream().anyMatch(n -> n.contains("max_parallel_processes")),
                "accepted-without-effect keys are reported: " + config.notes());
    }

    @Test
    void theIssuesKeysAndSluicesAdditionsAreRead() throws IOException {
        BridgesConfig config = load("""
                bridges.mqtt.cloud {
                  server = "tls+mqtt-tcp://cloud.example:8883"
                  proto_ver = 5
                  backoff_max = 30s
                  forwards = [ { local_topic = "telemetry/#", remote_topic = "", qos = 1, retain = false, prefix = "gw1/", suffix = "" } ]
                  subscription = [ { remote_topic = "cmd/gw1/#", local_topic = "#", qos = 1, retain_as_published = 1, retain_handling = 2, nolocal = false } ]
                  cancel_timeout = 5000
                  retry_qos_0 = true
                  conn_properties { session_expiry_interval = 3600, receive_maximum = 100, topic_alias_maximum = 16 }
                }
                bridges.mqtt.cache {
                  mounted_file_path = "%s"
                  disk_cache_size = 0
                  disk_cache_bytes = 64MB
                  full_policy = refuse_new
                  flush = always
                }
                bridges.kafka.lake {
                  bootstrap_hosts = "k1:9092,k2:9092"
                  forwards = [ { local_topic = "telemetry/#", kafka_topic = "telemetry", key = "clientid" } ]
                  acks = all
                  compression = zstd
                  linger = 20ms
                  batch_size = 256KB
                  security { sasl { mechanism = SCRAM-SHA-512, username = u, password = p } }
                }
                """.formatted(dir.resolve("bridges")));
        MqttBridgeSettings cloud = config.mqtt().get(0);
        assertTrue(cloud.server().tls());
        assertEquals(8883, cloud.server().port());
        assertEquals(30_000, cloud.backoffMaxMillis());
        assertEquals(5000, cloud.cancelTimeoutMillis(), "cancel_timeout is in milliseconds, as in NanoMQ");
        assertEquals(0, cloud.forwards().get(0).retain());
        assertEquals("gw1/telemetry/a", cloud.forwards().get(0).mapping().map("telemetry/a"));
        assertEquals("x/y", cloud.subscriptions().get(0).mapping().map("cmd/gw1/x/y"));
        assertFalse(cloud.subscriptions().get(0).noLocal());
        assertEquals(3600, cloud.connect().sessionExpirySeconds());
        assertEquals(100, cloud.connect().receiveMaximum());
        assertNull(cloud.ssl(), "TLS with the JDK's CAs when there is no ssl block");
        assertEquals(0, config.mqttCache().maxMessages());
        assertEquals(64L << 20, config.mqttCache().maxBytes());
        assertEquals(FullPolicy.REFUSE_NEW, config.mqttCache().fullPolicy());
        assertEquals(FlushPolicy.ALWAYS, config.mqttCache().flush());
        KafkaBridgeSettings lake = config.kafka().get(0);
        assertEquals(KafkaBridgeSettings.KeySource.CLIENTID, lake.forwards().get(0).key());
        assertEquals(20, lake.lingerMillis());
        assertEquals(256 * 1024, lake.batchBytes());
        assertEquals("SASL_PLAINTEXT", lake.security().protocol());
        assertTrue(cloud.clientId().startsWith("cloud-") && cloud.clientId().length() <= 23,
                "a stable default client id: " + cloud.clientId());
    }

    @Test
    void aDisabledBridgeIsNotStarted() throws IOException {
        BridgesConfig config = load("""
                bridges.mqtt.off { enable = false, server = "mqtt-tcp://h:1883", quic_keepalive = 120s }
                """);
        assertTrue(config.mqtt().isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            quic_keepalive = 120s                        | bridges.mqtt.b.quic_keepalive        | QUIC bridging is not supported
            hybrid_bridging = false                      | bridges.mqtt.b.hybrid_bridging       | QUIC bridging is not supported
            quic_0rtt = true                             | bridges.mqtt.b.quic_0rtt             | QUIC bridging is not supported
            transparent = true                           | bridges.mqtt.b.transparent           | not supported
            tcp { keepidle = 60s }                       | bridges.mqtt.b.tcp.keepidle          | not supported
            proto_ver = 6                                | bridges.mqtt.b.proto_ver             | between 3 and 5
            keepalive = soon                             | bridges.mqtt.b.keepalive             | must be a duration
            max_send_queue_len = 0                       | bridges.mqtt.b.max_send_queue_len    | between 1 and 65535
            forwards = [ { remote_topic = "" } ]         | bridges.mqtt.b.forwards[0].local_topic | is required
            forwards = [ { local_topic = "a/#" } ]       | bridges.mqtt.b.forwards[0].remote_topic | is required
            forwards = [ { local_topic = "a/#/b", remote_topic = "" } ] | bridges.mqtt.b.forwards[0].local_topic | not a valid MQTT topic filter
            forwards = [ { local_topic = "a", remote_topic = "", qos = 3 } ] | bridges.mqtt.b.forwards[0].qos | between 0 and 2
            forwards = [ { local_topic = "a", remote_topic = "", retain = 5 } ] | bridges.mqtt.b.forwards[0].retain | must be false/0, true/1 or 2
            forwards = [ { local_topic = "a", remote_topic = "", prefix = "x/#" } ] | bridges.mqtt.b.forwards[0].prefix | must not contain + or #
            forwards = [ { local_topic = "a/#", remote_topic = "", topic = "x" } ] | bridges.mqtt.b.forwards[0].topic | unknown key
            forwards = [ "a/#" ]                         | bridges.mqtt.b.forwards[0]           | must be a block
            subscription = [ { remote_topic = "c/#", local_topic = "" } ] | bridges.mqtt.b.subscription[0].qos | is required
            subscription = [ { remote_topic = "c/#", local_topic = "x/#", qos = 1 } ] | bridges.mqtt.b.subscription[0].local_topic | must be part of the filter
            subscription = [ { remote_topic = "c/#", local_topic = "", qos = 1, stream_id = 2 } ] | bridges.mqtt.b.subscription[0].stream_id | QUIC
            ssl { keyfile = "/no/such/key.pem" }         | bridges.mqtt.b.ssl                   | not tls+mqtt-tcp
            """)
    void aBadMqttBridgeKeyStopsStartUpNamingIt(String line, String path, String reason) {
        ConfigError e = error("bridges.mqtt.b { server = \"mqtt-tcp://h:1883\", " + line + " }");
        assertEquals(path, e.path(), e.getMessage());
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bridges.mqtt.b { proto_ver = 4 }                                  | bridges.mqtt.b.server          | is required
            bridges.mqtt.b { server = "mqtt-quic://h:14567" }                 | bridges.mqtt.b.server          | not supported
            bridges.mqtt.b { server = "http://h" }                            | bridges.mqtt.b.server          | unknown scheme
            bridges.mqtt.b { server = "h:1883" }                              | bridges.mqtt.b.server          | must be a URL
            bridges.mqtt."a b" { server = "mqtt-tcp://h:1883" }               | bridges.mqtt."a b"             | bridge name
            bridges.mqtt.cache { enable = false }                             | bridges.mqtt.cache.enable      | cannot be turned off
            bridges.mqtt.cache { full_policy = drop_newest }                  | bridges.mqtt.cache.full_policy | drop_oldest, refuse_new
            bridges.mqtt.cache { disk_cache_bytes = 10B }                     | bridges.mqtt.cache.disk_cache_bytes | between 1024
            bridges.mqtt.cache { flush = sometimes }                          | bridges.mqtt.cache.flush       | none, interval, always
            bridges.aws.c1 { server = "h:8883" }                              | bridges.aws                    | AWS IoT bridges are not supported
            bridges.nng.pub { }                                               | bridges.nng                    | unknown bridge type
            bridges.kafka.k { forwards = [] }                                 | bridges.kafka.k.bootstrap_hosts | is required
            bridges.kafka.k { bootstrap_hosts = "k1" }                        | bridges.kafka.k.bootstrap_hosts | not "host:port"
            bridges.kafka.k { bootstrap_hosts = "k:9092", acks = 2 }          | bridges.kafka.k.acks           | must be one of
            bridges.kafka.k { bootstrap_hosts = "k:9092", compression = brotli } | bridges.kafka.k.compression | must be one of
            bridges.kafka.k { bootstrap_hosts = "k:9092", forwards = [ { local_topic = "a", kafka_topic = "t", key = "payload" } ] } | bridges.kafka.k.forwards[0].key | must be one of
            bridges.kafka.k { bootstrap_hosts = "k:9092", forwards = [ { local_topic = "a", kafka_topic = "bad topic" } ] } | bridges.kafka.k.forwards[0].kafka_topic | a-z A-Z 0-9
            bridges.kafka.k { bootstrap_hosts = "k:9092", security { sasl { mechanism = GSSAPI, username = u, password = p } } } | bridges.kafka.k.security.sasl.mechanism | must be one of
            """)
    void otherBadBridgeKeysStopStartUpNamingThem(String hocon, String path, String reason) {
        ConfigError e = error(hocon);
        assertEquals(path, e.path(), e.getMessage());
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    @Test
    void twoBridgesCannotShareAName() {
        ConfigError e = error("""
                bridges.mqtt.up { server = "mqtt-tcp://h:1883" }
                bridges.kafka.up { bootstrap_hosts = "k:9092" }
                """);
        assertEquals("bridges.kafka.up", e.path());
        assertTrue(e.getMessage().contains("already used at bridges.mqtt.up"), e.getMessage());
    }
}
