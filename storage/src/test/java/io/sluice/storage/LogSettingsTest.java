package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.settings.InvalidSettingException;
import java.util.Map;

import org.junit.jupiter.api.Test;

class LogSettingsTest {

    private static void assertRejected(String key, String value, String... fragments) {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> LogSettings.builder().set(key, value).build());
        assertEquals(key, e.key(), e.getMessage());
        for (String fragment : fragments) {
            assertTrue(e.getMessage().contains(fragment), e.getMessage());
        }
    }

    @Test
    void badValuesAreRejectedNamingTheKeyAndTheValue() {
        assertRejected("segment_bytes", "12", "12");
        assertRejected("segment_bytes", "3000000000", "3000000000");
        assertRejected("segment_ms", "0", "0");
        assertRejected("index_interval_bytes", "-1", "-1");
        assertRejected("flush", "sometimes", "sometimes");
        assertRejected("flush_interval_ms", "soon", "soon");
        assertRejected("flush_messages", "0", "0");
        assertRejected("retention_ms", "0", "-1 (unlimited)");
        assertRejected("retention_bytes", "-5", "-5");
        assertRejected("cleanup_policy", "shred", "shred");
        assertRejected("min_cleanable_dirty_ratio", "1.5", "1.5");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> LogSettings.builder().set("segment_byte", "1"));
        assertTrue(unknown.getMessage().contains("segment_byte"));
    }

    @Test
    void everySettingRoundTripsThroughItsKey() {
        LogSettings settings = LogSettings.builder().segmentBytes(2048).flush(FlushPolicy.ALWAYS).retentionBytes(99)
                .cleanupPolicy(CleanupPolicy.COMPACT).minCleanableDirtyRatio(0.25).build();
        LogSettings.Builder parsed = LogSettings.builder();
        for (Map.Entry<String, String> e : settings.toMap().entrySet()) {
            parsed.set(e.getKey(), e.getValue());
        }
        assertEquals(settings, parsed.build());
        assertEquals(12, settings.toMap().size());
    }

    @Test
    void defaultsFollowKafka() {
        LogSettings d = LogSettings.defaults();
        assertEquals(1 << 30, d.segmentBytes());
        assertEquals(4096, d.indexIntervalBytes());
        assertEquals(604_800_000L, d.retentionMs());
        assertEquals(-1, d.retentionBytes());
        assertEquals(FlushPolicy.INTERVAL, d.flush());
    }
}
