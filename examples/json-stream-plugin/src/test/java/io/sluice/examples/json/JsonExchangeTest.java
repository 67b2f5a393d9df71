package io.sluice.examples.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.exchange.Exchange;
import io.sluice.exchange.ExchangeQuery;
import io.sluice.exchange.ExchangeSettings;
import io.sluice.parquet.DuckDb;
import io.sluice.testing.Eventually;
import io.sluice.parquet.ParquetSettings;
import io.sluice.parquet.StoreCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.stream.PluginRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JSON plugin in a real exchange: its settings come through the exchange's plugin block,
 * queries give the same records from the ring and from files, and DuckDB reads typed columns.
 */
class JsonExchangeTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final int MESSAGES = 40;

    @TempDir
    Path dir;

    private ExchangeSettings settings() {
        return ExchangeSettings.defaults("cars", "cars/+/telemetry", dir.toString()).withStreamType(JsonPlugin.ID)
                .withRing(RingSettings.defaults().withCap(1000).withFlushInterval(Duration.ofHours(1)))
                .withParquet(ParquetSettings.defaults(dir.toString()))
                .withPlugin(Map.of("fields", List.of("speed:double", "vin:string", "ok:boolean", "count:long", "engine.rpm:double")));
    }

    private static PluginRegistry plugins() {
        PluginRegistry plugins = PluginRegistry.withBuiltIns();
        plugins.register(new JsonPlugin(), "test");
        return plugins;
    }

    /** Message i: complete, except every 10th lacks engine.rpm and every 13th is not JSON. */
    private static String payload(int i) {
        if (i % 13 == 12) {
            return "garbage " + i;
        }
        return "{\"vin\": \"VIN" + i + "\", \"speed\": " + (i * 1.5) + ", \"ok\": " + (i % 2 == 0) + ", \"count\": " + (i * 1000L)
                + (i % 10 == 9 ? "" : ", \"engine\": {\"rpm\": " + (800 + i) + ", \"temp\": 90}") + "}";
    }

    private static byte[] decodeAll(Exchange exchange, String command) throws Exception {
        Collector sink = new Collector();
        try (ExchangeQuery query = exchange.query(command)) {
            while (query.decodeNext(sink)) {
                // every chunk
            }
        }
        return sink.bytes();
    }

    private static byte[] expectedSpeedAndRaw() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < MESSAGES; i++) {
            Records record = new Records().ts(T0 + i);
            if (i % 13 == 12) {
                record.absent().bytes(payload(i).getBytes(StandardCharsets.UTF_8));
            } else {
                record.number(i * 1.5);
                if (i % 10 == 9) {
                    record.bytes(payload(i).getBytes(StandardCharsets.UTF_8));
                } else {
                    record.absent();
                }
            }
            out.writeBytes(record.toBytes());
        }
        return out.toByteArray();
    }

    @Test
    void jsonTelemetryBecomesTypedColumnsThatDuckDbReadsAndQueriesDecode() throws Exception {
        String command = "sync-0-" + Long.MAX_VALUE + "-speed,raw";
        try (Exchange exchange = Exchange.open(settings(), plugins())) {
            for (int i = 0; i < MESSAGES; i++) {
                assertTrue(exchange.offer("cars/" + i + "/telemetry", payload(i).getBytes(StandardCharsets.UTF_8), T0 + i));
            }
            Eventually.await(() -> exchange.status().activeRows() == MESSAGES, () -> exchange.status().toString());
            assertArrayEquals(expectedSpeedAndRaw(), decodeAll(exchange, command), "from the ring");
        }
        try (Exchange exchange = Exchange.open(settings(), plugins())) {
            assertEquals(1, exchange.status().files());
            assertArrayEquals(expectedSpeedAndRaw(), decodeAll(exchange, command), "from the file");
            assertEquals(0, exchange.counter(StoreCounter.RECORDS_WRITTEN), "nothing new to write on reopening");
        }

        List<Object[]> types = DuckDb.query("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('" + dir
                + "/*.parquet'))");
        assertEquals(List.of("ts TIMESTAMP WITH TIME ZONE", "offset BIGINT", "topic VARCHAR", "speed DOUBLE", "vin VARCHAR", "ok BOOLEAN",
                "count BIGINT", "engine_rpm DOUBLE", "raw BLOB"), types.stream().map(r -> r[0] + " " + r[1]).toList());

        List<Object[]> rows = DuckDb.query("SELECT \"offset\", topic, speed, vin, ok, count, engine_rpm, raw FROM read_parquet('" + dir
                + "/*.parquet') ORDER BY \"offset\"");
        assertEquals(MESSAGES, rows.size());
        for (int i = 0; i < MESSAGES; i++) {
            Object[] row = rows.get(i);
            assertEquals((long) i, ((Number) row[0]).longValue());
            assertEquals("cars/" + i + "/telemetry", row[1]);
            if (i % 13 == 12) {
                assertNull(row[2]);
                assertNull(row[3]);
                assertArrayEquals(payload(i).getBytes(StandardCharsets.UTF_8), (byte[]) row[7]);
                continue;
            }
            assertEquals(i * 1.5, ((Number) row[2]).doubleValue());
            assertEquals("VIN" + i, row[3]);
            assertEquals(i % 2 == 0, row[4]);
            assertEquals(i * 1000L, ((Number) row[5]).longValue());
            if (i % 10 == 9) {
                assertNull(row[6]);
                assertArrayEquals(payload(i).getBytes(StandardCharsets.UTF_8), (byte[]) row[7], "raw kept when a field is missing");
            } else {
                assertEquals(800.0 + i, ((Number) row[6]).doubleValue());
                assertNull(row[7]);
            }
        }
    }

    @Test
    void badSettingsStopTheExchangeNamingTheKey() {
        ExchangeSettings bad = settings().withPlugin(Map.of("fields", List.of("speed:double", "vin:string", "rpm:dbl")));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Exchange.open(bad, plugins()));
        assertEquals("plugin.fields[2]: unknown type 'dbl'; types: double, long, string, boolean", e.getMessage());
    }
}
