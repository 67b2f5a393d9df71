package io.sluice.broker.connection;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAckReturnCode;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.security.Authorizer;
import io.sluice.net.auth.PasswordAuthenticator;
import io.sluice.net.auth.PasswordFile;
import io.sluice.net.auth.ScramCredential;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.ScramMechanism;
import io.sluice.broker.testing.TestBroker;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Passwords, anonymous access and SCRAM-SHA-256, with real clients against a password file. */
class AuthenticationTest {
    @TempDir
    Path dir;
    private TestBroker broker;

    @BeforeEach
    void start() throws Exception {
        Path file = dir.resolve("passwd");
        PasswordFile.write(file, Map.of(
                "alice", ScramCredential.create("wonderland".toCharArray(), 4096),
                "bob", ScramCredential.create("builder".toCharArray(), 4096)));
        PasswordAuthenticator authenticator = new PasswordAuthenticator(false, file);
        broker = new TestBroker(new Broker(MqttSettings.defaults(), List.of(), authenticator, Authorizer.ALLOW_ALL));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private Mqtt5BlockingClient v5(String id, String user, String password) {
        return MqttClient.builder().useMqttVersion5().identifier(id).serverHost(broker.host())
                .serverPort(broker.port()).simpleAuth().username(user)
                .password(password.getBytes(StandardCharsets.UTF_8)).applySimpleAuth().buildBlocking();
    }

    private Mqtt3BlockingClient v3(String id, String user, String password) {
        return MqttClient.builder().useMqttVersion3().identifier(id).serverHost(broker.host())
                .serverPort(broker.port()).simpleAuth().username(user)
                .password(password.getBytes(StandardCharsets.UTF_8)).applySimpleAuth().buildBlocking();
    }

    @Test
    void theRightPasswordLetsAClientInWithEitherProtocol() {
        Mqtt5BlockingClient five = v5("a5", "alice", "wonderland");
        Mqtt3BlockingClient three = v3("b3", "bob", "builder");
        assertEquals(Mqtt5ConnAckReasonCode.SUCCESS, five.connect().getReasonCode());
        assertEquals(Mqtt3ConnAckReturnCode.SUCCESS, three.connect().getReturnCode());
        five.disconnect();
        three.disconnect();
    }

    @Test
    void aWrongPasswordIsRefusedWith0x86InMqtt5And4In311() {
        Mqtt5ConnAckException five = assertThrows(Mqtt5ConnAckException.class,
                () -> v5("a5", "alice", "looking-glass").connect());
        assertEquals(Mqtt5ConnAckReasonCode.BAD_USER_NAME_OR_PASSWORD, five.getMqttMessage().getReasonCode());

        Mqtt3ConnAckException three = assertThrows(Mqtt3ConnAckException.class,
                () -> v3("a3", "alice", "looking-glass").connect());
        assertEquals(Mqtt3ConnAckReturnCode.BAD_USER_NAME_OR_PASSWORD, three.getMqttMessage().getReturnCode());

        assertThrows(Mqtt5ConnAckException.class, () -> v5("m5", "mallory", "wonderland").connect(),
                "an unknown user is refused like a wrong password");
        assertEquals(3, broker.broker().metrics().get(BrokerCounter.CONNECTIONS_REFUSED_AUTH));
    }

    @Test
    void anonymousClientsAreNotAuthorizedWhenAnonymousAccessIsOff() {
        Mqtt5ConnAckException five = assertThrows(Mqtt5ConnAckException.class,
                () -> Clients.v5(broker, "anon5").connect());
        assertEquals(Mqtt5ConnAckReasonCode.NOT_AUTHORIZED, five.getMqttMessage().getReasonCode());
        Mqtt3ConnAckException three = assertThrows(Mqtt3ConnAckException.class,
                () -> Clients.v3(broker, "anon3").connect());
        assertEquals(Mqtt3ConnAckReturnCode.NOT_AUTHORIZED, three.getMqttMessage().getReturnCode());
    }

    private Mqtt5BlockingClient scram(String id, ScramMechanism mechanism) {
        return MqttClient.builder().useMqttVersion5().identifier(id).serverHost(broker.host())
                .serverPort(broker.port()).enhancedAuth(mechanism).buildBlocking();
    }

    @Test
    void scramSha256AuthenticatesBothWaysAndTheSessionWorks() throws Exception {
        ScramMechanism mechanism = new ScramMechanism("alice", "wonderland");
        Mqtt5BlockingClient client = scram("scram-ok", mechanism);

        assertEquals(Mqtt5ConnAckReasonCode.SUCCESS, client.connect().getReasonCode());
        assertEquals(1, mechanism.serverVerified.get(), "the broker proved it knows alice's verifier");

        var inbox = Clients.inbox(client);
        client.subscribeWith().topicFilter("scram/t").qos(MqttQos.AT_LEAST_ONCE).send();
        client.publishWith().topic("scram/t").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {1}).send();
        assertEquals("scram/t", inbox.next().getTopic().toString());

        client.reauth();
        assertEquals(2, mechanism.serverVerified.get(), "re-authentication ran the exchange again");
        client.disconnect();
    }

    @Test
    void reAuthenticatingAsAnotherUserEndsTheConnectionWith0x87() throws Exception {
        ScramMechanism mechanism = new ScramMechanism("alice", "wonderland");
        Mqtt5BlockingClient client = scram("scram-switch", mechanism);
        assertEquals(Mqtt5ConnAckReasonCode.SUCCESS, client.connect().getReasonCode());

        mechanism.reauthenticateAs("bob", "builder");
        assertThrows(RuntimeException.class, client::reauth, "bob's valid credentials do not make alice bob");
        Eventually.await(() -> !client.getState().isConnected(), "the broker ended the connection");
        assertEquals(1, broker.broker().metrics().get(BrokerCounter.DISCONNECTS_NOT_AUTHORIZED));
    }

    @Test
    void scramWithAWrongPasswordIsRefusedWith0x86() {
        Mqtt5ConnAckException e = assertThrows(Mqtt5ConnAckException.class,
                () -> scram("scram-bad", new ScramMechanism("alice", "wrong")).connect());
        assertEquals(Mqtt5ConnAckReasonCode.BAD_USER_NAME_OR_PASSWORD, e.getMqttMessage().getReasonCode());
    }

    @Test
    void anAuthenticationMethodTheBrokerDoesNotOfferIsRefusedWith0x8C() {
        Mqtt5ConnAckException e = assertThrows(Mqtt5ConnAckException.class,
                () -> scram("kerberos", new ScramMechanism("alice", "wonderland", "GSSAPI")).connect());
        assertEquals(Mqtt5ConnAckReasonCode.BAD_AUTHENTICATION_METHOD, e.getMqttMessage().getReasonCode());
    }

    @Test
    void aPacketOtherThanAuthDuringTheExchangeIsAProtocolError() throws Exception {
        byte[] clientFirst = "n,,n=alice,r=abcdefghijkl".getBytes(StandardCharsets.US_ASCII);
        RawClient.Bytes props = new RawClient.Bytes().u8(0x15).string("SCRAM-SHA-256")
                .u8(0x16).u16(clientFirst.length).raw(clientFirst);
        try (RawClient raw = broker.raw()) {
            RawClient.Packet challenge = raw.send(RawClient.connect(5, "raw-scram", 0x02, 60, props.toByteArray()))
                    .read();
            assertEquals(15, challenge.type(), "AUTH");
            assertEquals(0x18, challenge.u8(0), "continue authentication");
            raw.send(RawClient.publish(5, "t", 0, 0, new byte[0], new byte[] {1}));
            assertTrue(raw.closedByBroker());
        }
    }
}
