package io.sluice.server.http;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** A test against a whole server started by {@link ApiServer}: its temporary folder, and the server closed after each test. */
abstract class ApiServerTest {
    @TempDir
    Path dir;
    /** The server under test; a test starts it with its own configuration. */
    ApiServer api;

    /**
     * An MQTT bridge {@code cloud} that forwards {@code localTopic} to a port where nothing listens,
     * with its store under {@link #dir} and {@code extraKeys} in its block: its backlog only grows.
     */
    String bridgeToNowhere(String localTopic, String extraKeys) {
        return "bridges.mqtt.cache.mounted_file_path = \"" + dir.resolve("bridges") + "\"\n"
                + "bridges.mqtt.cloud {\n  server = \"mqtt-tcp://127.0.0.1:1\"\n" + extraKeys
                + "  forwards = [ { local_topic = \"" + localTopic + "\", remote_topic = \"\" } ]\n}\n";
    }

    @AfterEach
    void closeServer() {
        if (api != null) {
            api.close();
        }
    }
}
