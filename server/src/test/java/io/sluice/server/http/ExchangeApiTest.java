package io.sluice.server.http;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.sluice.parquet.DuckDb;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sluice's own endpoints: exchange status and the range read of captured records as JSON, CSV and Parquet. */
class ExchangeApiTest extends ApiServerTest {
    private static final int COUNT = 40;


    private void startAndCapture() throws Exception {
        api = new ApiServer(dir, """
                http_server.port = 0
                exchange_client.mq1 {
                  exchange_url = "tcp://127.0.0.1:*"
                  exchange { name = "telemetry", topic = "fleet/#", streamType = 0, flush_interval = 100ms,
                             ringbus { cap = 8 } }
                }
                """);
        Mqtt5BlockingClient publisher = api.mqtt("vehicle");
        for (int i = 0; i < COUNT; i++) {
            publisher.publishWith().topic("fleet/v1").qos(MqttQos.AT_LEAST_ONCE)
                    .payload(("{\"kmh\":" + i + ",\"vin\":\"A\"}").getBytes(StandardCharsets.UTF_8)).send();
        }
        publisher.disconnect();
        Eventually.await(() -> received() == COUNT, "every message is captured");
    }

    @SuppressWarnings("unchecked")
    private long received() {
        try {
            Map<String, Object> exchange = api.get("/api/v4/exchanges/telemetry").dataMap();
            return (Long) ((Map<String, Object>) exchange.get("counters")).get("ring_received_total");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void exchangeStatusShowsRatesRingWriterFilesAndTheKeyRange() throws Exception {
        startAndCapture();
        List<Map<String, Object>> exchanges = api.get("/api/v4/exchanges").dataList();
        assertEquals(1, exchanges.size());
        Map<String, Object> status = exchanges.get(0);
        assertEquals("telemetry", status.get("name"));
        assertEquals("fleet/#", status.get("topic"));
        assertEquals(8L, status.get("ring_cap"));
        for (String key : List.of("rates", "ring_fill", "writer_queue", "files", "disk_bytes", "wal_bytes",
                "oldest_ts", "newest_ts")) {
            assertTrue(status.containsKey(key), key + " in " + status);
        }
        assertEquals(Set.of("captured", "refused", "dropped"), ((Map<?, ?>) status.get("rates")).keySet());
        assertTrue((Long) status.get("wal_bytes") > 0, "the default durability keeps a write-ahead log");
        Eventually.await(() -> {
            try {
                return (Long) api.get("/api/v4/exchanges/telemetry").dataMap().get("oldest_ts") > 0;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "batches handed up give the oldest ts");
        assertEquals(404, api.get("/api/v4/exchanges/nope").status());
    }

    @Test
    void recordsOfARangeComeAsJsonCsvAndParquetThatDuckDbReads() throws Exception {
        startAndCapture();
        ApiServer.Answer json = api.get("/api/v4/exchanges/telemetry/records?start=0&format=json");
        assertEquals(200, json.status(), json.body());
        List<Map<String, Object>> rows = json.dataList();
        assertEquals(COUNT, rows.size());
        assertEquals("{\"kmh\":7,\"vin\":\"A\"}", rows.get(7).get("data"));
        assertEquals("fleet/v1", rows.get(7).get("topic"));
        assertEquals((long) COUNT, ((Map<?, ?>) json.json().get("meta")).get("count"));
        long ts = (Long) rows.get(10).get("ts");

        ApiServer.Answer csv = api.get("/api/v4/exchanges/telemetry/records?format=csv");
        assertEquals(200, csv.status());
        String[] lines = csv.body().split("\r\n");
        assertEquals("ts,offset,topic,data", lines[0]);
        assertEquals(COUNT + 1, lines.length);
        assertTrue(lines[1].endsWith(",fleet/v1,\"{\"\"kmh\"\":0,\"\"vin\"\":\"\"A\"\"}\""), lines[1]);
        assertTrue(csv.headers().firstValue("content-disposition").orElse("").contains(".csv"));

        ApiServer.Answer parquet = api.get("/api/v4/exchanges/telemetry/records?format=parquet&start=" + ts);
        assertEquals(200, parquet.status());
        Path file = dir.resolve("download.parquet");
        Files.write(file, parquet.bytes());
        List<Object[]> read = DuckDb.query("SELECT count(*), epoch_ms(min(ts)), max(\"offset\") FROM read_parquet('" + file + "')");
        assertTrue(((Number) read.get(0)[0]).longValue() >= COUNT - 10, "the rows from ts on");
        assertEquals(ts, ((Number) read.get(0)[1]).longValue());
    }

    @Test
    void aRangeHoldingMoreThanTheLimitIsRefusedWithAClearError() throws Exception {
        startAndCapture();
        ApiServer.Answer tooMany = api.get("/api/v4/exchanges/telemetry/records?limit=5");
        assertEquals(400, tooMany.status());
        String message = (String) tooMany.json().get("message");
        assertTrue(message.contains("more than 5 records") && message.contains("max_records"), message);
        assertEquals(400, api.get("/api/v4/exchanges/telemetry/records?limit=100000000").status());
        assertEquals(400, api.get("/api/v4/exchanges/telemetry/records?start=10&end=5").status());
        assertEquals(400, api.get("/api/v4/exchanges/telemetry/records?format=xml").status());
    }
}
