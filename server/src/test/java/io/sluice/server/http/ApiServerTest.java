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

    @AfterEach
    void closeServer() {
        if (api != null) {
            api.close();
        }
    }
}
