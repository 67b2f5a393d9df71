package io.sluice.server;

import io.sluice.server.config.ConfigError;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.KafkaConfig;
import io.sluice.server.config.SluiceConfig;
import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.Engine;
import io.sluice.storage.FlushPolicy;
import io.sluice.streams.PartitionKey;
import io.sluice.streams.StreamSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code streams { }} and {@code listeners.kafka { }}: every key, and every error with its key path. */
class StreamsConfigTest {
    @TempDir
    Path dir;

    private SluiceConfig load(String hocon) throws IOException {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, "streams.dir = \"" + dir.resolve("streams") + "\"\n" + hocon);
        return ConfigLoader.load(file);
    }

    private ConfigError error(String hocon) {
        return assertThrows(ConfigError.class, () -> load(hocon));
    }

    @Test
    void everyStreamKeyIsRead() throws IOException {
        SluiceConfig config = load("""
                storage { flush = always, segment_ms = 2h }
                streams.sensors {
                  topic = "sensors/#"
                  partitions = 4
                  partition_key = clientid
                  engine = memory
                  retention_ms = 2d
                  retention_bytes = 1GB
                  segment_bytes = 16MB
                  cleanup_policy = compact
                  flush = none
                }
                streams."vehicle.telemetry" { topic = "vehicle/+/telemetry" }
                """);
        StreamSettings sensors = config.streams().streams().stream().filter(s -> s.name().equals("sensors")).findFirst()
                .orElseThrow();
        assertEquals("sensors/#", sensors.topic());
        assertEquals(4, sensors.partitions());
        assertEquals(PartitionKey.CLIENTID, sensors.partitionKey());
        assertEquals(Engine.MEMORY, sensors.engine());
        assertEquals(2L * 24 * 3600 * 1000, sensors.log().retentionMs());
        assertEquals(1L << 30, sensors.log().retentionBytes());
        assertEquals(16 << 20, sensors.log().segmentBytes());
        assertEquals(CleanupPolicy.COMPACT, sensors.log().cleanupPolicy());
        assertEquals(FlushPolicy.NONE, sensors.log().flush());
        assertEquals(2L * 3600 * 1000, sensors.log().segmentMs(), "from the storage block");

        StreamSettings vehicle = config.streams().streams().stream().filter(s -> s.name().equals("vehicle.telemetry"))
                .findFirst().orElseThrow();
        assertEquals(1, vehicle.partitions());
        assertEquals(PartitionKey.TOPIC, vehicle.partitionKey());
        assertEquals(Engine.SEGMENT, vehicle.engine());
        assertEquals(7L * 24 * 3600 * 1000, vehicle.log().retentionMs(), "Kafka's retention");
        assertEquals(FlushPolicy.ALWAYS, vehicle.log().flush(), "the storage block's flush");
        assertNull(config.kafka());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
            "bad name|streams.\"a/b\" { topic = x }|streams.\"a/b\"|Kafka topic names",
            "partitions below 1|streams.s { topic = x, partitions = 0 }|streams.s.partitions|between 1",
            "unknown engine|streams.s { topic = x, engine = disk }|streams.s.engine|expected segment, memory or rocksdb",
            "write buffers over the cache|streams.rocksdb_write_buffer_bytes = 128MB|streams.rocksdb_write_buffer_bytes|at most rocksdb_block_cache_bytes",
            "enable_cache not a boolean|streams.enable_cache = maybe|streams.enable_cache|true or false",
            "missing topic|streams.s { partitions = 2 }|streams.s.topic|required",
            "bad topic filter|streams.s { topic = \"a/#/b\" }|streams.s.topic|MQTT topic filter",
            "bad partition key|streams.s { topic = x, partition_key = key }|streams.s.partition_key|one of topic",
            "duplicate for Kafka|streams.\"a.b\" { topic = x }\\nstreams.a_b { topic = y }|streams.a_b|collides with stream 'a.b'",
            "not a block|streams.s = 3|streams.s|must be a block",
            "unquoted dotted name|streams.a.b { topic = x }|streams.a.topic|must be quoted",
            "unknown key|streams.s { topic = x, partitons = 2 }|streams.s.partitons|unknown key",
            "kafka TLS without keys|listeners.kafka { ssl = true }|listeners.kafka.ssl|listeners.ssl",
            "kafka request size|listeners.kafka { max_request_size = 1KB }|listeners.kafka.max_request_size|between",
    })
    void aBadStreamOrKafkaSettingStopsStartUpWithItsKey(String what, String hocon, String key, String reason) {
        ConfigError error = error(hocon.replace("\\n", "\n"));
        assertEquals(key, error.path(), what + ": " + error.getMessage());
        assertTrue(error.getMessage().contains(reason), what + ": " + error.getMessage());
    }

    @Test
    void partitionsLoweredFromWhatIsOnDiskStopStartUp() throws Exception {
        SluiceServer.start(load("listeners.tcp.bind = \"127.0.0.1:0\"\npersistence.enabled = false\n"
                + "streams.s { topic = \"s/#\", partitions = 4 }\n")).close();
        ConfigError lowered = assertThrows(ConfigError.class, () -> SluiceServer.start(
                load("listeners.tcp.bind = \"127.0.0.1:0\"\npersistence.enabled = false\n"
                        + "streams.s { topic = \"s/#\", partitions = 2 }\n")).close());
        assertEquals("streams.s.partitions", lowered.path());
        assertTrue(lowered.getMessage().contains("4 partitions on disk"), lowered.getMessage());
        ConfigError engine = assertThrows(ConfigError.class, () -> SluiceServer.start(
                load("listeners.tcp.bind = \"127.0.0.1:0\"\npersistence.enabled = false\n"
                        + "streams.s { topic = \"s/#\", partitions = 4, engine = memory }\n")).close());
        assertEquals("streams.s.engine", engine.path());
    }

    @Test
    void theKafkaListenerKeys() throws IOException {
        KafkaConfig kafka = load("""
                listeners.kafka {
                  bind = "127.0.0.1:19092"
                  advertised = "gateway.local:9092"
                  max_request_size = 4MB
                  max_connections = 100
                }
                """).kafka();
        assertEquals(19092, kafka.bind().getPort());
        assertEquals("gateway.local", kafka.advertisedHost());
        assertEquals(9092, kafka.advertisedPort());
        assertEquals(4 << 20, kafka.maxRequestSize());
        assertEquals(100, kafka.maxConnections());
        assertNull(kafka.tls());
        SluiceConfig onlyKafka = load("listeners.kafka.bind = \"127.0.0.1:0\"\n");
        assertEquals(1, onlyKafka.listeners().size(), "MQTT keeps its default listener");
        assertEquals("gateway", load("listeners.kafka.advertised = gateway\n").kafka().advertisedHost());
    }
}
