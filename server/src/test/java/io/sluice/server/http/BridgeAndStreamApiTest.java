package io.sluice.server.http;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The status of bridges and streams over real HTTP, while real MQTT clients publish into them. */
class BridgeAndStreamApiTest extends ApiServerTest {

    private static Object fetch(ApiServer api, String path, String key) {
        try {
            return api.get(path).dataMap().get(key);
        } catch (Exception e) {
            throw new IllegalStateException("GET " + path, e);
        }
    }

    @Test
    void aBridgeWhoseRemoteIsAwayShowsItsStateAndAGrowingBacklog() throws Exception {
        api = new ApiServer(dir, bridgeToNowhere("up/#", "") + "http_server.port = 0\n");
        List<Map<String, Object>> bridges = api.get("/api/v4/bridges").dataList();
        assertEquals(1, bridges.size(), bridges.toString());
        assertEquals("cloud", bridges.get(0).get("name"));
        assertEquals(false, bridges.get(0).get("connected"), "nothing listens on port 1");
        assertTrue(List.of("connecting", "backoff").contains(bridges.get(0).get("state")), bridges.toString());

        Mqtt5BlockingClient device = api.mqtt("device");
        for (int i = 0; i < 3; i++) {
            device.publishWith().topic("up/temp").qos(MqttQos.AT_LEAST_ONCE)
                    .payload(("2" + i).getBytes(StandardCharsets.UTF_8)).send();
        }
        device.disconnect();
        Eventually.await(() -> ((Long) fetch(api, "/api/v4/bridges/cloud", "backlog")) == 3,
                "the three forwarded messages wait in the bridge's backlog");
        assertTrue((Long) fetch(api, "/api/v4/bridges/cloud", "backlog_bytes") > 0);
        assertNotNull(fetch(api, "/api/v4/bridges/cloud", "counters"));

        ApiServer.Answer unknown = api.get("/api/v4/bridges/%3Cnone%3E");
        assertEquals(404, unknown.status());
        assertTrue(unknown.body().contains("no bridge"), unknown.body());
    }

    @Test
    void aStreamShowsItsPartitionsOffsetsAndRecords() throws Exception {
        api = new ApiServer(dir, "streams.dir = \"" + dir.resolve("streams") + "\"\n" + """
                http_server.port = 0
                streams.sensors { topic = "sensors/#", partitions = 2 }
                """);
        assertEquals(0L, fetch(api, "/api/v4/streams/sensors", "records"));

        Mqtt5BlockingClient sensor = api.mqtt("sensor");
        for (int i = 0; i < 4; i++) {
            sensor.publishWith().topic("sensors/s" + i).qos(MqttQos.AT_LEAST_ONCE)
                    .payload("1".getBytes(StandardCharsets.UTF_8)).send();
        }
        sensor.disconnect();
        Eventually.await(() -> ((Long) fetch(api, "/api/v4/streams/sensors", "records")) == 4,
                "the four publishes are appended to the stream");
        List<Map<String, Object>> streams = api.get("/api/v4/streams").dataList();
        assertEquals(1, streams.size());
        assertEquals("sensors/#", streams.get(0).get("topic"));
        assertEquals(2, ((List<?>) streams.get(0).get("partition_offsets")).size());

        assertEquals(404, api.get("/api/v4/streams/nothing").status());
    }
}
