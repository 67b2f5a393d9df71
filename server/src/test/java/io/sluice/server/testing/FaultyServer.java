package io.sluice.server.testing;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.sluice.server.SluiceServer;
import io.sluice.server.config.ConfigLoader;
import io.sluice.storage.segment.SegmentFaults;
import io.sluice.testing.FaultyFileChannel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;

/**
 * A server started in this JVM from a configuration file, with the segment channel's fault seam
 * installed before it opens a log, so that a fault test can fail the writes and fsyncs of the
 * exchanges' write-ahead logs and of the broker state; {@link #close} stops the server, then
 * removes the seam.
 */
public final class FaultyServer implements AutoCloseable {
    private final SegmentFaults faults = SegmentFaults.install();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private SluiceServer server;

    /** Starts the server {@code config} describes. */
    public SluiceServer start(Path config) throws Exception {
        server = SluiceServer.start(ConfigLoader.load(config));
        return server;
    }

    public SluiceServer server() {
        return server;
    }

    /** The fault switches of every segment opened since this was made. */
    public FaultyFileChannel.Faults faults() {
        return faults.faults();
    }

    /** An MQTT 5 client connected to the listener named {@code tcp}. */
    public Mqtt5BlockingClient client(String id) {
        Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(server.address("tcp").getPort()).buildBlocking();
        client.connect();
        return client;
    }

    /** A GET of {@code path} on the server's HTTP API. */
    public HttpResponse<String> get(String path) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + server.httpAddress().getPort() + path);
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            faults.close();
        }
    }
}
