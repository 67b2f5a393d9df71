package io.sluice.server;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5SubAckException;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.net.auth.PasswordFile;
import io.sluice.net.auth.ScramCredential;
import io.sluice.server.config.ConfigLoader;
import io.sluice.testing.Eventually;
import io.sluice.testing.LeakWatch;
import io.sluice.broker.testing.Pki;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLSocket;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.Certificate;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server as operators run it: from a configuration file, scraped over HTTP, its files edited while it runs. */
class ServerOperationsTest {
    @TempDir
    Path dir;
    private SluiceServer server;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void leaks() {
        LeakWatch.install();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private SluiceServer start(String config) throws IOException {
        Path file = dir.resolve("sluice.conf");
        // Broker state and captured files go to the test's folder, never the working directory.
        Files.writeString(file, "persistence.dir = \"" + dir.resolve("state") + "\"\n"
                + "parquet.dir = \"" + dir.resolve("parquet") + "\"\n" + config);
        server = SluiceServer.start(ConfigLoader.load(file));
        return server;
    }

    private Mqtt5BlockingClient client(String id, String user, String password) {
        InetSocketAddress tcp = server.address("tcp");
        var builder = MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(tcp.getPort());
        if (user != null) {
            builder = builder.simpleAuth().username(user).password(password.getBytes(StandardCharsets.UTF_8))
                    .applySimpleAuth();
        }
        return builder.buildBlocking();
    }

    private HttpResponse<String> get(String path) throws Exception {
        InetSocketAddress address = server.httpAddress();
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + address.getPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Parses the Prometheus text format into sample name (with labels) → value. */
    private Map<String, Double> scrape() throws Exception {
        HttpResponse<String> response = get("/metrics");
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("content-type").orElse("").startsWith("text/plain; version=0.0.4"),
                String.valueOf(response.headers().map()));
        Map<String, Double> samples = new HashMap<>();
        for (String line : response.body().split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return samples;
    }

    @Test
    void metricsAreScrapedOverHttpAndFollowTheTraffic() throws Exception {
        start("""
                listeners.tcp.bind = "127.0.0.1:0"
                http_server.port = 0
                """);
        Map<String, Double> before = scrape();
        assertEquals(0.0, before.get("sluice_messages_received_total"));
        assertEquals(0.0, before.get("sluice_clients_connected"));
        assertTrue(before.keySet().stream().anyMatch(k -> k.startsWith("jvm_memory_used_bytes{")), "JVM metrics");

        Mqtt5BlockingClient client = client("scraped", null, null);
        client.connect();
        for (int i = 0; i < 3; i++) {
            client.publishWith().topic("m").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[10]).send();
        }
        Map<String, Double> after = scrape();
        assertEquals(3.0, after.get("sluice_messages_received_total"));
        assertEquals(1.0, after.get("sluice_clients_connected"));
        assertEquals(1.0, after.get("sluice_connections_open"));
        assertTrue(after.get("sluice_bytes_received_total") > before.get("sluice_bytes_received_total"));
        client.disconnect();

        GaugeWithCallback.builder().name("sluice_exchange_hook_test").help("registered by the server later")
                .callback(cb -> cb.call(7)).register(server.metricsRegistry());
        assertEquals(7.0, scrape().get("sluice_exchange_hook_test"), "collectors added later are served");

        HttpResponse<String> health = get("/health");
        assertEquals(200, health.statusCode());
        assertEquals("{\"status\":\"UP\"}", health.body().strip());
        assertEquals(404, get("/nothing-here").statusCode());
    }

    private static void passwd(Path file, String user, String password) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = PasswdCommand.run(new String[] {file.toString(), user},
                new ByteArrayInputStream((password + "\n").getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out), new PrintStream(out));
        assertEquals(0, status, out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void passwordAndAclFilesAreReloadedWhenTheyChangeAndABrokenOneIsNotApplied() throws Exception {
        Path passwords = dir.resolve("passwd");
        PasswordFile.write(passwords, Map.of("alice", ScramCredential.create("wonderland".toCharArray(), 4096)));
        Path acl = dir.resolve("acl.conf");
        Files.writeString(acl, "rules = [ { permit = allow, topics = [\"users/%u/#\"] } ]\n");
        start("""
                listeners.tcp.bind = "127.0.0.1:0"
                auth {
                  allow_anonymous = false
                  no_match = deny
                  password_file = "passwd"   # relative to this file's folder
                  acl_file = "acl.conf"
                }
                """);
        Mqtt5BlockingClient alice = client("alice", "alice", "wonderland");
        alice.connect();
        assertThrows(Mqtt5SubAckException.class, () -> alice.subscribeWith().topicFilter("news/today").send());

        Files.writeString(acl, """
                rules = [
                  { permit = allow, topics = ["users/%u/#"] }
                  { permit = allow, action = subscribe, topics = ["news/#"] }
                ]
                """);
        Eventually.await(() -> subscribes(alice, "news/today"), "the new ACL applies to the open connection too");

        Files.writeString(acl, "rules = [ { permit = allow, topics = [\"news/#\"], colour = red } ]\n");
        Eventually.await(() ->
                server.broker().metrics().get(BrokerCounter.FILE_RELOADS_FAILED) == 1, "the broken file is refused");
        assertTrue(subscribes(alice, "news/tomorrow"), "the previous rules are still in force");
        alice.disconnect();

        passwd(passwords, "bob", "builder");
        Eventually.await(() -> connects("bob", "builder"), "bob, added while the broker runs, can connect");
    }

    private static boolean subscribes(Mqtt5BlockingClient client, String filter) {
        try {
            client.subscribeWith().topicFilter(filter).send();
            return true;
        } catch (Mqtt5SubAckException e) {
            return false;
        }
    }

    private boolean connects(String user, String password) {
        Mqtt5BlockingClient client = client("probe-" + user, user, password);
        try {
            client.connect();
            client.disconnect();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Test
    void newTlsConnectionsGetACertificateReplacedOnDisk() throws Exception {
        Pki pki = Pki.create(dir, "Ops CA");
        Pki.Issued first = pki.server("broker");
        start("""
                listeners.ssl {
                  bind = "127.0.0.1:0"
                  keyfile = "broker-key.pem"
                  certfile = "broker-cert.pem"
                }
                """);
        assertEquals(first.certificate(), peerCertificate(pki));

        Pki.Issued renewed = pki.server("renewed");
        Files.move(renewed.keyFile(), first.keyFile(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.move(renewed.certFile(), first.certFile(), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);

        Eventually.await(() -> renewed.certificate().equals(peerCertificate(pki)),
                "a new connection sees the renewed certificate");
    }

    private Certificate peerCertificate(Pki pki) {
        InetSocketAddress ssl = server.address("ssl");
        try (SSLSocket socket = (SSLSocket) pki.clientContext(null).getSocketFactory()
                .createSocket("127.0.0.1", ssl.getPort())) {
            socket.startHandshake();
            return socket.getSession().getPeerCertificates()[0];
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
