package io.sluice.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.storage.Engine;
import io.sluice.storage.LogSettings;

class StreamSettingsTest {

    @ParameterizedTest
    @ValueSource(strings = {"sensors", "a", "vehicle.telemetry_v2-raw", "..."})
    void kafkaTopicNamesAreStreamNames(String name) {
        assertTrue(StreamName.isValid(name), name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "sensors/#", "with space", "ünï", "a+b"})
    void namesKafkaRefusesAreRefused(String name) {
        assertFalse(StreamName.isValid(name), name);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StreamName.check(name));
        assertTrue(e.getMessage().startsWith("name: "), e.getMessage());
    }

    @Test
    void aNameMustFitKafkasLimitAndTheStorageDirectories() {
        assertTrue(StreamName.isValid("x".repeat(180)));
        assertFalse(StreamName.isValid("x".repeat(181)));
        assertFalse(StreamName.isValid(".".repeat(61)), "a dot is stored as three characters");
        assertTrue(StreamName.problem("x".repeat(250)).contains("249"));
    }

    @Test
    void badValuesNameTheirKey() {
        LogSettings log = LogSettings.defaults();
        assertEquals("partitions: must be between 1 and 10000, got 0", assertThrows(IllegalArgumentException.class,
                () -> StreamSettings.of("s", "a/#", 0, log)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> StreamSettings.of("s", "", 1, log))
                .getMessage().startsWith("topic: "));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> StreamSettings.of("a/b", "a/#", 1, log))
                .getMessage().startsWith("name: "));
    }

    @Test
    void engineIsSegmentMemoryOrRocksdb() {
        assertEquals(Engine.SEGMENT, StreamSettings.engine("segment"));
        assertEquals(Engine.MEMORY, StreamSettings.engine("memory"));
        assertEquals(Engine.ROCKSDB, StreamSettings.engine("rocksdb"));
        assertEquals("engine: expected segment, memory or rocksdb, got 'disk'",
                assertThrows(IllegalArgumentException.class, () -> StreamSettings.engine("disk")).getMessage());
    }

    @Test
    void partitionKeyParsesItsThreeValues() {
        assertEquals(PartitionKey.ROUND_ROBIN, PartitionKey.fromConfig("round_robin"));
        assertEquals(PartitionKey.CLIENTID, PartitionKey.fromConfig("clientid"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PartitionKey.fromConfig("key"))
                .getMessage().startsWith("partition_key: "));
    }

    @Test
    void sequencesWrapAtInt32AsKafkaProducersDo() {
        assertEquals(5, ProducerBatch.increment(2, 3));
        assertEquals(0, ProducerBatch.increment(Integer.MAX_VALUE, 1));
        assertEquals(1, new ProducerBatch(7, (short) 0, Integer.MAX_VALUE - 1, 4).lastSequence());
    }
}
