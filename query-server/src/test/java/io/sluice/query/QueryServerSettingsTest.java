package io.sluice.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.settings.InvalidSettingException;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class QueryServerSettingsTest {

    private static final QueryServerSettings DEFAULTS = QueryServerSettings.defaults(QueryServerSettings.DEFAULT_URL);

    private static void refused(String key, Supplier<QueryServerSettings> settings) {
        InvalidSettingException e = assertThrows(InvalidSettingException.class, settings::get);
        assertEquals(key, e.key(), e.getMessage());
    }

    @Test
    void defaultsAreNanoMqsUrlUnlimitedQueriesAndOneMebibyteFrames() {
        assertEquals("tcp://127.0.0.1:10000", DEFAULTS.url());
        assertEquals(0, DEFAULTS.limitFrequency());
        assertEquals(1 << 20, DEFAULTS.maxFrameBytes());
        assertEquals(Duration.ofSeconds(10), DEFAULTS.sendTimeout());
        assertEquals(19, DEFAULTS.nice());
    }

    @Test
    void everyInvalidValueIsRefusedNamingItsKey() {
        refused("exchange_url", () -> DEFAULTS.withUrl("udp://127.0.0.1:10000"));
        refused("exchange_url", () -> DEFAULTS.withUrl("tcp://127.0.0.1"));
        refused("exchange_url", () -> DEFAULTS.withUrl("tcp://127.0.0.1:70000"));
        refused("exchange_url", () -> DEFAULTS.withUrl(null));
        refused("limit_frequency", () -> DEFAULTS.withLimitFrequency(-1));
        refused("max_frame_bytes", () -> DEFAULTS.withMaxFrameBytes(1023));
        refused("max_frame_bytes", () -> DEFAULTS.withMaxFrameBytes((256 << 20) + 1));
        refused("max_sync_bytes", () -> DEFAULTS.withMaxSyncBytes(100));
        refused("send_timeout", () -> DEFAULTS.withSendTimeout(Duration.ofMillis(99)));
        refused("spool_dir", () -> DEFAULTS.withSpoolDir(null));
        refused("query_nice", () -> DEFAULTS.withNice(-1));
        refused("query_nice", () -> DEFAULTS.withNice(20));
    }

    @Test
    void urlsMayNameEveryInterfaceAnIpv6HostOrAnEphemeralPort() {
        assertTrue(DEFAULTS.withUrl("tcp://*:10000").url().startsWith("tcp://*"));
        assertTrue(DEFAULTS.withUrl("tcp://[::1]:10000").url().contains("::1"));
        assertTrue(DEFAULTS.withUrl("tcp://localhost:*").ephemeralPort());
    }
}
