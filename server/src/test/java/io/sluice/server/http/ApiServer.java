package io.sluice.server.http;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5DisconnectException;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import io.sluice.server.SluiceServer;
import io.sluice.server.config.ConfigLoader;
import io.sluice.testing.Eventually;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** A whole Sluice server started from a configuration for tests, and an HTTP client for its API. */
final class ApiServer implements AutoCloseable {
    private final SluiceServer server;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private String authorization;

    /** An answer: status, body and headers; {@link #json()} parses the body. */
    record Answer(int status, byte[] bytes, java.net.http.HttpHeaders headers) {
        String body() {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> json() {
            return (Map<String, Object>) JsonReader.parse(body());
        }

        @SuppressWarnings("unchecked")
        List<Map<String, Object>> dataList() {
            return (List<Map<String, Object>>) json().get("data");
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> dataMap() {
            return (Map<String, Object>) json().get("data");
        }

        long code() {
            return (Long) json().get("code");
        }
    }

    /** Starts a server with MQTT on a free port, state and captures under {@code dir}, and {@code config}. */
    ApiServer(Path dir, String config) throws IOException {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, "listeners.tcp.bind = \"127.0.0.1:0\"\n"
                + "persistence.dir = \"" + dir.resolve("state") + "\"\n"
                + "parquet.dir = \"" + dir.resolve("parquet") + "\"\n" + config);
        server = SluiceServer.start(ConfigLoader.load(file));
    }

    /** Sends these credentials with every request from now on (null: none). */
    ApiServer as(String user, String password) {
        authorization = user == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                (user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return this;
    }

    SluiceServer server() {
        return server;
    }

    String base() {
        InetSocketAddress address = server.httpAddress();
        return "http://127.0.0.1:" + address.getPort();
    }

    Answer get(String path) throws Exception {
        return send(request(path).GET());
    }

    Answer delete(String path) throws Exception {
        return send(request(path).DELETE());
    }

    Answer post(String path, String body) throws Exception {
        return send(request(path).POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base() + path));
        if (authorization != null) {
            builder.header("Authorization", authorization);
        }
        return builder;
    }

    private Answer send(HttpRequest.Builder builder) throws Exception {
        HttpResponse<byte[]> response = http.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Answer(response.statusCode(), response.body(), response.headers());
    }

    /** A connected MQTT 5 client. */
    Mqtt5BlockingClient mqtt(String clientId) {
        Mqtt5BlockingClient client = mqttUnconnected(clientId);
        client.connect();
        return client;
    }

    /** A connected MQTT 5 client that records why it was disconnected, for {@link KickedClient#awaitKicked()}. */
    KickedClient mqttToKick(String clientId) {
        KickedClient kicked = new KickedClient();
        Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(clientId).serverHost("127.0.0.1")
                .serverPort(server.address("tcp").getPort())
                .addDisconnectedListener(context -> kicked.cause.compareAndSet(null, context.getCause()))
                .buildBlocking();
        client.connect();
        kicked.client = client;
        return kicked;
    }

    /** A client expected to be kicked, and what its disconnection said. */
    static final class KickedClient {
        private final AtomicReference<Throwable> cause = new AtomicReference<>();
        private Mqtt5BlockingClient client;

        Mqtt5BlockingClient client() {
            return client;
        }

        /** Waits for the disconnection and checks that the server sent DISCONNECT 0x98 (administrative action). */
        void awaitKicked() {
            Eventually.await(() -> cause.get() != null, "the kicked client " + client.getConfig().getClientIdentifier()
                    .map(Object::toString).orElse("?") + " is disconnected");
            Mqtt5DisconnectException disconnect = assertInstanceOf(Mqtt5DisconnectException.class, cause.get());
            assertEquals(Mqtt5DisconnectReasonCode.ADMINISTRATIVE_ACTION, disconnect.getMqttMessage().getReasonCode());
        }
    }

    /** An MQTT 5 client, not connected yet. */
    Mqtt5BlockingClient mqttUnconnected(String clientId) {
        return MqttClient.builder().useMqttVersion5().identifier(clientId).serverHost("127.0.0.1")
                .serverPort(server.address("tcp").getPort()).buildBlocking();
    }

    @Override
    public void close() {
        server.close();
    }
}
