package io.sluice.server.http;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.testing.Clients;
import io.sluice.net.auth.PasswordFile;
import io.sluice.net.auth.ScramCredential;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** NanoMQ's HTTP API v4 over real HTTP, against a whole server with real MQTT clients. */
class NanoMqApiTest extends ApiServerTest {
    private final List<Mqtt5BlockingClient> clients = new ArrayList<>();

    @AfterEach
    void stop() {
        for (Mqtt5BlockingClient client : clients) {
            if (client.getState().isConnected()) {
                client.disconnect();
            }
        }
    }

    private ApiServer start() throws Exception {
        api = new ApiServer(dir, "http_server.port = 0\n");
        return api;
    }

    private Mqtt5BlockingClient mqtt(String id) {
        Mqtt5BlockingClient client = api.mqtt(id);
        clients.add(client);
        return client;
    }

    @Test
    void brokersNodesAndMetricsAnswerInNanoMqShape() throws Exception {
        start();
        mqtt("one");
        ApiServer.Answer brokers = api.get("/api/v4/brokers");
        assertEquals(200, brokers.status());
        assertEquals(0, brokers.code());
        Map<String, Object> broker = brokers.dataList().get(0);
        assertEquals("Running", broker.get("node_status"));
        assertTrue(((String) broker.get("uptime")).matches("\\d+ Hours, \\d+ minutes, \\d+ seconds"), broker.toString());
        assertEquals(1L, api.get("/api/v4/nodes").dataList().get(0).get("connections"));
        Map<String, Object> metrics = api.get("/api/v4/metrics").dataMap();
        assertEquals(1L, metrics.get("connections.count"));
        assertTrue(metrics.containsKey("messages.received"), metrics.keySet().toString());
        assertTrue(api.get("/api/v4/prometheus").body().contains("sluice_clients_connected 1"));
        assertEquals("{\"status\":\"UP\"}\n", api.get("/health").body());
    }

    @Test
    void clientsArePagedWithEmqxMetaAndFoundByPartOfTheirId() throws Exception {
        start();
        for (int i = 0; i < 5; i++) {
            mqtt("sensor-" + i);
        }
        mqtt("gateway");
        ApiServer.Answer page2 = api.get("/api/v4/clients?page=2&limit=2");
        assertEquals(200, page2.status());
        assertEquals(List.of("sensor-1", "sensor-2"), ids(page2.dataList()), "sorted by client id: gateway, sensor-0, ...");
        Map<?, ?> meta = (Map<?, ?>) page2.json().get("meta");
        assertEquals(Map.of("page", 2L, "limit", 2L, "count", 6L, "hasnext", true), meta);
        ApiServer.Answer last = api.get("/api/v4/clients?page=3&limit=2");
        assertEquals(false, ((Map<?, ?>) last.json().get("meta")).get("hasnext"));

        ApiServer.Answer found = api.get("/api/v4/clients?like_clientid=GATE");
        assertEquals(List.of("gateway"), ids(found.dataList()));
        Map<String, Object> client = found.dataList().get(0);
        assertEquals("connected", client.get("conn_state"));
        assertEquals(5L, client.get("proto_ver"));
        assertTrue(((String) client.get("ip_address")).contains("127.0.0.1"), client.toString());
        assertEquals("gateway", api.get("/api/v4/clients/gateway").dataList().get(0).get("client_id"));
    }

    private static List<Object> ids(List<Map<String, Object>> clients) {
        return clients.stream().map(c -> c.get("client_id")).toList();
    }

    @Test
    void kickSendsMqtt5DisconnectWithAdministrativeAction() throws Exception {
        start();
        ApiServer.KickedClient victim = api.mqttToKick("victim");

        ApiServer.Answer kicked = api.delete("/api/v4/clients/victim");
        assertEquals(200, kicked.status(), kicked.body());
        assertEquals(0, kicked.code());
        victim.awaitKicked();

        Eventually.await(() -> {
            try {
                return api.delete("/api/v4/clients/victim").status() == 404;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "kicking it again finds it offline");
        ApiServer.Answer unknown = api.delete("/api/v4/clients/nobody");
        assertEquals(404, unknown.status());
        assertEquals(112, unknown.code());
    }

    @Test
    void publishIsReceivedByARealSubscriberWithItsProperties() throws Exception {
        start();
        Mqtt5BlockingClient subscriber = mqtt("listener");
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(subscriber);
        subscriber.subscribeWith().topicFilter("cmd/#").qos(MqttQos.AT_LEAST_ONCE).send();

        ApiServer.Answer sent = api.post("/api/v4/mqtt/publish", """
                {"topic": "cmd/valve", "payload": "open", "qos": 1, "retain": false, "clientid": "ops",
                 "properties": {"content_type": "text/plain", "user_properties": {"by": "test"}}}""");
        assertEquals(200, sent.status(), sent.body());
        assertEquals(0, sent.code());
        Mqtt5Publish received = inbox.next();
        assertEquals("cmd/valve", received.getTopic().toString());
        assertEquals("open", new String(received.getPayloadAsBytes(), StandardCharsets.UTF_8));
        assertEquals("text/plain", received.getContentType().orElseThrow().toString());
        assertEquals("test", received.getUserProperties().asList().get(0).getValue().toString());

        String encoded = Base64.getEncoder().encodeToString(new byte[] {0, (byte) 0xff, 7});
        assertEquals(200, api.post("/api/v4/mqtt/publish", "{\"topic\":\"cmd/raw\",\"payload\":\"" + encoded
                + "\",\"encoding\":\"base64\"}").status());
        assertEquals(List.of((byte) 0, (byte) 0xff, (byte) 7), bytes(inbox.next().getPayloadAsBytes()));
    }

    private static List<Byte> bytes(byte[] raw) {
        List<Byte> list = new ArrayList<>();
        for (byte b : raw) {
            list.add(b);
        }
        return list;
    }

    @Test
    void aRetainedQos2PublishReachesALaterSubscriberAsRetained() throws Exception {
        start();
        ApiServer.Answer sent = api.post("/api/v4/mqtt/publish",
                "{\"topic\": \"cfg/setpoint\", \"payload\": \"21.5\", \"qos\": 2, \"retain\": true}");
        assertEquals(200, sent.status(), sent.body());
        Mqtt5BlockingClient late = mqtt("late");
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(late);
        late.subscribeWith().topicFilter("cfg/#").qos(MqttQos.EXACTLY_ONCE).send();
        Mqtt5Publish retained = inbox.next();
        assertTrue(retained.isRetain(), retained.toString());
        assertEquals(MqttQos.EXACTLY_ONCE, retained.getQos());
        assertEquals("21.5", new String(retained.getPayloadAsBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void publishBatchAnswersEachMessageAndABadOneFailsAlone() throws Exception {
        start();
        Mqtt5BlockingClient subscriber = mqtt("batch-listener");
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(subscriber);
        subscriber.subscribeWith().topicFilter("b/#").send();
        ApiServer.Answer answer = api.post("/api/v4/mqtt/publish_batch", """
                [{"topic": "b/1", "payload": "one"}, {"topic": "b/+", "payload": "wild"}, {"topic": "b/2", "payload": "two"}]""");
        assertEquals(200, answer.status(), answer.body());
        List<Map<String, Object>> results = answer.dataList();
        assertEquals(List.of(0L, 108L, 0L), results.stream().map(r -> r.get("code")).toList());
        assertTrue(((String) results.get(1).get("message")).contains("wildcards"), results.toString());
        assertEquals("one", new String(inbox.next().getPayloadAsBytes(), StandardCharsets.UTF_8));
        assertEquals("two", new String(inbox.next().getPayloadAsBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void subscriptionsAndTheTopicTreeShowSubscriptionsAndRetainedMessages() throws Exception {
        start();
        Mqtt5BlockingClient subscriber = mqtt("watcher");
        subscriber.subscribeWith().topicFilter("plant/+/temp").qos(MqttQos.AT_LEAST_ONCE).send();
        mqtt("retainer").publishWith().topic("plant/boiler/state").payload("on".getBytes()).retain(true)
                .qos(MqttQos.AT_LEAST_ONCE).send();

        List<Map<String, Object>> subscriptions = api.get("/api/v4/subscriptions?clientid=watcher").dataList();
        assertEquals(1, subscriptions.size());
        assertEquals("plant/+/temp", subscriptions.get(0).get("topic"));
        assertEquals(1L, subscriptions.get(0).get("qos"));
        mqtt("second").subscribeWith().topicFilter("plant/#").send();
        ApiServer.Answer page = api.get("/api/v4/subscriptions?page=1&limit=1");
        assertEquals(1, page.dataList().size());
        assertEquals(Map.of("page", 1L, "limit", 1L, "count", 2L, "hasnext", true), page.json().get("meta"));
        assertEquals("watcher", api.get("/api/v4/subscriptions/watcher").dataList().get(0).get("clientid"));
        assertEquals(List.of(), api.get("/api/v4/subscriptions/nobody").dataList());

        Map<String, Object> tree = api.get("/api/v4/topic-tree").dataMap();
        Map<String, Object> plant = child(tree, "plant");
        assertEquals(1L, child(child(plant, "+"), "temp").get("subscribers"));
        Map<String, Object> state = child(child(plant, "boiler"), "state");
        assertEquals(true, state.get("retained"));
        assertEquals("plant/boiler/state", state.get("path"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> child(Map<String, Object> node, String level) {
        for (Map<String, Object> child : (List<Map<String, Object>>) node.get("children")) {
            if (level.equals(child.get("topic"))) {
                return child;
            }
        }
        throw new AssertionError("no level '" + level + "' under " + node);
    }

    @Test
    void reloadReReadsThePasswordFileEvenWhenUnchanged() throws Exception {
        Path passwd = dir.resolve("passwd");
        PasswordFile.write(passwd, Map.of("ops", ScramCredential.create("ops-pw".toCharArray(), 4096)));
        api = new ApiServer(dir, """
                auth { allow_anonymous = true, password_file = "passwd" }
                http_server { port = 0, users = ["ops"] }
                """);
        api.as("ops", "ops-pw");
        assertTrue(api.get("/api/v4/reload").dataMap().get("reloadable").toString().contains("password file"));
        long before = reloads();

        ApiServer.Answer answer = api.post("/api/v4/reload", "");
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.dataMap().get("reloading").toString().contains(passwd.getFileName().toString()), answer.body());
        // The file watch reloads changed files only, so this count moves because of the request.
        Eventually.await(() -> reloads() > before, "the unchanged password file is reloaded");
        assertFalse(api.get("/api/v4").dataList().isEmpty());
    }

    private long reloads() {
        try {
            return (Long) api.get("/api/v4/metrics").dataMap().get("file.reloads");
        } catch (Exception e) {
            throw new IllegalStateException("GET /api/v4/metrics", e);
        }
    }
}
