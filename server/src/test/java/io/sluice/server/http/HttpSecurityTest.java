package io.sluice.server.http;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.sluice.broker.testing.Pki;
import io.sluice.net.auth.PasswordFile;
import io.sluice.net.auth.ScramCredential;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Who may use the API, and what bad input gets: real HTTP against a whole server. */
class HttpSecurityTest extends ApiServerTest {

    @Test
    void nanoMqCredentialsAreRequiredAndRefusalsSayWhy() throws Exception {
        api = new ApiServer(dir, """
                http_server { port = 0, username = admin, password = "s3cret-pw", auth_type = basic }
                """);
        ApiServer.Answer none = api.get("/api/v4/brokers");
        assertEquals(401, none.status());
        assertEquals(104, none.code());
        assertTrue(none.headers().firstValue("www-authenticate").orElse("").startsWith("Basic"), none.headers().map().toString());

        ApiServer.Answer wrong = api.as("admin", "guess").get("/api/v4/brokers");
        assertEquals(401, wrong.status());
        assertEquals(103, wrong.code());
        ApiServer.Answer wrongUser = api.as("root", "s3cret-pw").get("/api/v4/brokers");
        assertEquals(401, wrongUser.status());

        assertEquals(200, api.as("admin", "s3cret-pw").get("/api/v4/brokers").status());
        assertTrue((Long) api.get("/api/v4/metrics").dataMap().get("http.auth_failures") >= 2);

        api.as(null, null);
        assertEquals(200, api.get("/metrics").status(), "Prometheus scrapes without credentials by default");
        assertEquals(200, api.get("/health").status());
        assertEquals(200, api.get("/").status(), "the dashboard's files hold no data");
    }

    @Test
    void metricsAskForCredentialsWhenAuthMetricsIsSet() throws Exception {
        api = new ApiServer(dir, """
                http_server { port = 0, username = admin, password = pw, auth_metrics = true }
                """);
        assertEquals(401, api.get("/metrics").status());
        assertEquals(401, api.get("/health").status());
        assertEquals(200, api.as("admin", "pw").get("/metrics").status());
    }

    @Test
    void passwordFileUsersNamedInUsersMayUseTheApiAndNoOneElse() throws Exception {
        Path passwd = dir.resolve("passwd");
        PasswordFile.write(passwd, Map.of(
                "ops", ScramCredential.create("ops-pw".toCharArray(), 4096),
                "device", ScramCredential.create("device-pw".toCharArray(), 4096)));
        api = new ApiServer(dir, """
                auth { allow_anonymous = true, password_file = "passwd" }
                http_server { port = 0, users = ["ops"] }
                """);
        assertEquals(200, api.as("ops", "ops-pw").get("/api/v4/clients").status());
        Mqtt5BlockingClient device = MqttClient.builder().useMqttVersion5().identifier("press-1")
                .serverHost("127.0.0.1").serverPort(api.server().address("tcp").getPort())
                .simpleAuth().username("device").password("device-pw".getBytes()).applySimpleAuth().buildBlocking();
        device.connect();
        assertEquals("press-1", api.get("/api/v4/clients/username/device").dataList().get(0).get("client_id"));
        assertEquals(List.of(), api.get("/api/v4/clients/username/ops").dataList());
        device.disconnect();
        assertEquals(401, api.as("ops", "wrong").get("/api/v4/clients").status());
        assertEquals(401, api.as("device", "device-pw").get("/api/v4/clients").status(),
                "a broker user not named in http_server.users");
    }

    @Test
    void httpsUsesThePemFilesOfTheTlsListener() throws Exception {
        Pki pki = Pki.create(dir, "Ops CA");
        pki.server("broker");
        api = new ApiServer(dir, """
                listeners.ssl { bind = "127.0.0.1:0", keyfile = "broker-key.pem", certfile = "broker-cert.pem" }
                http_server { port = 0, username = admin, password = pw, ssl = true }
                """);
        HttpClient https = HttpClient.newBuilder().sslContext(pki.clientContext(null))
                .version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> answer = https.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:"
                        + api.server().httpAddress().getPort() + "/api/v4/brokers"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:pw".getBytes()))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        assertTrue(answer.body().startsWith("{\"code\":0"), answer.body());
    }

    @Test
    void withoutCredentialsTheServerListensOnLoopbackOnly() throws Exception {
        // slf4j-simple writes to whatever System.err is when it logs.
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(tee(err, log), true, StandardCharsets.UTF_8));
        try {
            api = new ApiServer(dir, """
                    http_server { port = 0, ip_addr = "0.0.0.0" }
                    """);
        } finally {
            System.setErr(err);
        }
        String said = log.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("no credentials configured") && said.contains("not on http_server.ip_addr"), said);
        assertTrue(InetAddress.getByName(api.server().httpAddress().getHostString()).isLoopbackAddress(),
                api.server().httpAddress().toString());
        assertEquals(200, api.get("/api/v4/brokers").status());
    }

    /** Writes to both: the log still reaches the console while the test reads it. */
    private static OutputStream tee(OutputStream first, OutputStream second) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                first.write(b);
                second.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                first.write(bytes, offset, length);
                second.write(bytes, offset, length);
            }
        };
    }

    @Test
    void configurationIsShownWithSecretsMasked() throws Exception {
        api = new ApiServer(dir, bridgeToNowhere("up/#", "  username = \"edge\"\n  password = \"bridge-pw-secret\"\n")
                + "http_server { port = 0, username = admin, password = \"hunter2-secret\" }\n");
        ApiServer.Answer config = api.as("admin", "hunter2-secret").get("/api/v4/configuration");
        assertEquals(200, config.status(), config.body());
        assertFalse(config.body().contains("hunter2-secret"), config.body());
        assertFalse(config.body().contains("bridge-pw-secret"), config.body());
        assertTrue(config.body().contains(ConfigView.MASK), config.body());
        assertTrue(config.body().contains("\"edge\""), "non-secret values are shown");
    }

    @Test
    void badInputGets400WithAMessageAndIsNeverEchoedAsMarkup() throws Exception {
        api = new ApiServer(dir, """
                http_server { port = 0, max_body = 2KB }
                """);
        ApiServer.Answer page = api.get("/api/v4/clients?page=%3Cscript%3Ealert(1)%3C/script%3E");
        assertEquals(400, page.status());
        assertEquals(108, page.code());
        assertTrue(((String) page.json().get("message")).contains("'page'"), page.body());
        assertFalse(page.body().contains("<script>"), page.body());
        assertTrue(page.headers().firstValue("content-type").orElse("").startsWith("application/json"));

        ApiServer.Answer notJson = api.post("/api/v4/mqtt/publish", "{\"topic\": ");
        assertEquals(400, notJson.status());
        assertEquals(109, notJson.code());

        ApiServer.Answer wildcard = api.post("/api/v4/mqtt/publish", "{\"topic\": \"a/#\", \"payload\": \"x\"}");
        assertEquals(400, wildcard.status());
        assertTrue(((String) wildcard.json().get("message")).contains("wildcards"), wildcard.body());

        ApiServer.Answer missing = api.post("/api/v4/mqtt/publish", "{\"payload\": \"x\"}");
        assertEquals(400, missing.status());
        assertEquals(107, missing.code());

        ApiServer.Answer oversized = api.post("/api/v4/mqtt/publish",
                "{\"topic\": \"a\", \"payload\": \"" + "x".repeat(4096) + "\"}");
        assertEquals(400, oversized.status());
        assertTrue(oversized.body().contains("max_body"), oversized.body());

        ApiServer.Answer unknown = api.get("/api/v4/no-such-thing");
        assertEquals(404, unknown.status());
        assertEquals(102, unknown.code());
        assertEquals(405, api.delete("/api/v4/brokers").status());
    }
}
