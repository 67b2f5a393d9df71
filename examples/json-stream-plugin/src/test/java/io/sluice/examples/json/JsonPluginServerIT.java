package io.sluice.examples.json;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.sluice.server.testing.ServerProcess;
import io.sluice.parquet.DuckDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The plugin as users install it: its packaged jar copied into {@code plugins/} of a server
 * started in its own JVM, whose class path holds the server but neither this plugin's classes
 * nor its JSON parser. Runs after {@code package}, so the jar exists.
 */
class JsonPluginServerIT {
    @TempDir
    Path dir;

    /** The test's class path without this module's classes and without Jackson: only the server. */
    private static String serverClassPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("json-stream-plugin") && !entry.contains("jackson-core"))
                .collect(Collectors.joining(File.pathSeparator));
    }

    @Test
    void jsonTelemetryBecomesTypedColumnsThatDuckDbQueries() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        Path jar = Path.of(System.getProperty("sluice.plugin.jar"));
        Files.copy(jar, plugins.resolve(jar.getFileName()));
        String config = "persistence.enabled = false\n"
                + "plugins.dir = \"" + plugins + "\"\n"
                + "exchange_client.cars {\n"
                + "  exchange_url = \"tcp://127.0.0.1:*\"\n"
                + "  exchange {\n"
                + "    name = cars\n"
                + "    topic = \"cars/+/telemetry\"\n"
                + "    streamType = 2\n"
                + "    plugin { fields = [\"speed:double\", \"vin:string\", \"ok:boolean\", \"engine.rpm:long\"] }\n"
                + "  }\n"
                + "}\n";
        try (ServerProcess server = ServerProcess.start(dir, config, serverClassPath())) {
            assertTrue(server.output().stream().anyMatch(l -> l.contains("stream plugin 2 (json) loaded")),
                    String.valueOf(server.output()));
            Mqtt5BlockingClient car = MqttClient.builder().useMqttVersion5().identifier("car-7")
                    .serverHost("127.0.0.1").serverPort(server.port()).buildBlocking();
            car.connect();
            publish(car, "{\"speed\": 88.5, \"vin\": \"WVW123\", \"ok\": true, \"engine\": {\"rpm\": 3100}}");
            publish(car, "{\"speed\": \"fast\", \"vin\": \"WVW123\", \"ok\": false, \"engine\": {\"rpm\": 2900}}");
            publish(car, "not json at all");
            car.disconnect();
            assertEquals(143, server.terminate());
        }
        List<Object[]> rows = DuckDb.query("SELECT speed, vin, ok, engine_rpm, raw FROM read_parquet('"
                + dir.resolve("parquet") + "/*.parquet') ORDER BY \"offset\"");
        assertEquals(3, rows.size());
        assertEquals(88.5, rows.get(0)[0]);
        assertEquals("WVW123", rows.get(0)[1]);
        assertEquals(true, rows.get(0)[2]);
        assertEquals(3100L, rows.get(0)[3]);
        assertNull(rows.get(0)[4], "stored completely: no raw copy");
        assertNull(rows.get(1)[0], "a string where a double belongs");
        assertEquals(2900L, rows.get(1)[3]);
        assertArrayEquals("{\"speed\": \"fast\", \"vin\": \"WVW123\", \"ok\": false, \"engine\": {\"rpm\": 2900}}"
                .getBytes(StandardCharsets.UTF_8), (byte[]) rows.get(1)[4], "kept raw because of the wrong type");
        assertArrayEquals("not json at all".getBytes(StandardCharsets.UTF_8), (byte[]) rows.get(2)[4]);
    }

    private static void publish(Mqtt5BlockingClient car, String json) {
        car.publishWith().topic("cars/car-7/telemetry").qos(MqttQos.AT_LEAST_ONCE)
                .payload(json.getBytes(StandardCharsets.UTF_8)).send();
    }
}
