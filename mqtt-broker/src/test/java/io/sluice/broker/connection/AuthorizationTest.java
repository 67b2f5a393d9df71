package io.sluice.broker.connection;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5SubAckException;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.suback.Mqtt5SubAckReasonCode;
import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.security.AclAuthorizer;
import io.sluice.net.auth.Authenticator;
import io.sluice.broker.security.Authorizer;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.sluice.broker.testing.RawClient.SUBACK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ACL as clients meet it: refused subscriptions, refused publishes, and deny_action. */
class AuthorizationTest {
    private static final String RULES = """
            rules = [
              { permit = allow, action = pubsub, topics = ["users/%u/#", "clients/%c/#"] }
              { permit = allow, ipaddr = "127.0.0.0/8", action = subscribe, topics = ["loopback/#"] }
              { permit = allow, ipaddr = "10.0.0.0/8", action = pubsub, topics = ["lan/#"] }
              { permit = allow, username = "ops", action = pubsub, topics = ["#"] }
            ]
            """;

    @TempDir
    Path dir;
    private TestBroker broker;

    private void start(Authorizer.DenyAction denyAction) throws Exception {
        Path acl = dir.resolve("acl.conf");
        Files.writeString(acl, RULES);
        broker = new TestBroker(new Broker(MqttSettings.defaults(), List.of(), Authenticator.ALLOW_ALL,
                new AclAuthorizer(false, denyAction, acl)));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private Mqtt5BlockingClient v5(String id, String user) {
        return MqttClient.builder().useMqttVersion5().identifier(id).serverHost(broker.host())
                .serverPort(broker.port()).simpleAuth().username(user).applySimpleAuth().buildBlocking();
    }

    private Mqtt3BlockingClient v3(String id, String user) {
        return MqttClient.builder().useMqttVersion3().identifier(id).serverHost(broker.host())
                .serverPort(broker.port()).simpleAuth().username(user).applySimpleAuth().buildBlocking();
    }

    @Test
    void aDeniedSubscriptionIsRefusedInItsSubAckAndNeverGranted() throws Exception {
        start(Authorizer.DenyAction.IGNORE);
        try (RawClient five = broker.raw(); RawClient three = broker.raw()) {
            five.send(RawClient.connect(5, "raw5")).read();
            three.send(RawClient.connect(4, "raw3")).read();

            RawClient.Packet subAck5 = five.send(RawClient.subscribe(5, 1, "users/bob/#", 1)).readUntil(SUBACK);
            RawClient.Packet subAck3 = three.send(RawClient.subscribe(4, 1, "users/bob/#", 1)).readUntil(SUBACK);
            RawClient.Packet allowed = five.send(RawClient.subscribe(5, 2, "clients/raw5/in", 1)).readUntil(SUBACK);

            assertEquals(0x87, subAck5.u8(3), "MQTT 5: not authorized");
            assertEquals(0x80, subAck3.u8(2), "MQTT 3.1.1: failure");
            assertEquals(0x01, allowed.u8(3), "%c is the client's own id");
            // Checked while connected: closing the clean sessions removes their subscriptions.
            assertEquals(1, broker.broker().router().subscriptionCount(), "only the allowed one exists");
        }
        assertEquals(2, broker.broker().metrics().get(BrokerCounter.SUBSCRIBE_DENIED));
    }

    @Test
    void aDeniedQos1PublishGets0x87InMqtt5AndIsDroppedAndCountedOtherwise() throws Exception {
        start(Authorizer.DenyAction.IGNORE);
        Mqtt5BlockingClient ops = v5("ops-1", "ops");
        ops.connect();
        var inbox = Clients.inbox(ops);
        ops.subscribeWith().topicFilter("users/#").qos(MqttQos.AT_LEAST_ONCE).send();

        Mqtt5BlockingClient alice = v5("alice-1", "alice");
        alice.connect();
        Mqtt5PubAckException denied = assertThrows(Mqtt5PubAckException.class, () -> alice.publishWith()
                .topic("users/bob/x").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {1}).send());
        assertEquals(Mqtt5PubAckReasonCode.NOT_AUTHORIZED, denied.getMqttMessage().getReasonCode());
        alice.publishWith().topic("users/bob/y").qos(MqttQos.AT_MOST_ONCE).payload(new byte[] {2}).send();

        Mqtt3BlockingClient carol = v3("carol-1", "carol");
        carol.connect();
        carol.publishWith().topic("users/bob/z").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {3}).send();

        alice.publishWith().topic("users/alice/ok").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {4}).send();
        assertEquals("users/alice/ok", inbox.next().getTopic().toString(), "only the allowed one arrives");
        assertNull(inbox.poll(200));
        assertEquals(3, broker.broker().metrics().get(BrokerCounter.PUBLISH_DENIED));
        alice.disconnect();
        carol.disconnect();
        ops.disconnect();
    }

    @Test
    void ipAddressRulesMatchTheClientsAddress() throws Exception {
        start(Authorizer.DenyAction.IGNORE);
        Mqtt5BlockingClient local = v5("local-1", "someone");
        local.connect();
        var granted = local.subscribeWith().topicFilter("loopback/status").send();
        Mqtt5SubAckException refused = assertThrows(Mqtt5SubAckException.class,
                () -> local.subscribeWith().topicFilter("lan/status").send());
        assertEquals(List.of(Mqtt5SubAckReasonCode.GRANTED_QOS_2), granted.getReasonCodes());
        assertEquals(List.of(Mqtt5SubAckReasonCode.NOT_AUTHORIZED), refused.getMqttMessage().getReasonCodes(),
                "the client is on 127.0.0.1, not in 10.0.0.0/8");
        local.disconnect();
    }

    @Test
    void withDenyActionDisconnectADeniedPublishEndsTheConnection() throws Exception {
        start(Authorizer.DenyAction.DISCONNECT);
        try (RawClient raw = broker.raw()) {
            raw.send(RawClient.connect(5, "rude")).read();
            raw.send(RawClient.publish(5, "users/bob/x", 0, 0, new byte[0], "x".getBytes(StandardCharsets.UTF_8)));
            RawClient.Packet disconnect = raw.readUntil(RawClient.DISCONNECT);
            assertEquals(0x87, disconnect.u8(0), "not authorized");
            assertTrue(raw.closedByBroker());
        }
        Eventually.await(() -> broker.broker().metrics().get(BrokerCounter.DISCONNECTS_NOT_AUTHORIZED) == 1,
                "the forced disconnect is counted");
    }
}
