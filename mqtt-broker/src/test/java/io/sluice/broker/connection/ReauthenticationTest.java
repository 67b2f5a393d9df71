package io.sluice.broker.connection;

import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.security.Authorizer;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import io.sluice.net.auth.AuthExchange;
import io.sluice.net.auth.Authenticator;
import io.sluice.net.auth.ClientIdentity;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.sluice.broker.testing.RawClient.CONNACK;
import static io.sluice.broker.testing.RawClient.DISCONNECT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MQTT 5 re-authentication (§4.12.1) confirms who the client is or ends the connection, even with
 * an authenticator that would let the client log in as anyone: here a one-step "TOKEN" method whose
 * data is the user name, so that only the broker's own check stands between alice and bob.
 */
class ReauthenticationTest {
    private static final String METHOD = "TOKEN";
    private static final int AUTH = 15;

    private TestBroker broker;

    @BeforeEach
    void start() throws Exception {
        Authenticator anyone = new Authenticator() {
            @Override
            public Verdict authenticate(ClientIdentity identity, byte[] password) {
                return Verdict.NOT_AUTHORIZED;
            }

            @Override
            public AuthExchange startExchange(String method, ClientIdentity identity) {
                return METHOD.equals(method) ? new TokenExchange() : null;
            }
        };
        broker = new TestBroker(new Broker(MqttSettings.defaults(), List.of(), anyone, Authorizer.ALLOW_ALL));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    /** Succeeds at once as the user the data names. */
    private static final class TokenExchange implements AuthExchange {
        @Override
        public String method() {
            return METHOD;
        }

        @Override
        public Step respond(byte[] clientData) {
            return Step.success(null, new String(clientData, StandardCharsets.UTF_8));
        }
    }

    private static byte[] authProperties(String user) {
        byte[] data = user.getBytes(StandardCharsets.UTF_8);
        return new RawClient.Bytes().u8(0x15).string(METHOD).u8(0x16).u16(data.length).raw(data).toByteArray();
    }

    private static byte[] reauth(String user) {
        byte[] props = authProperties(user);
        return RawClient.packet(0xF0, new RawClient.Bytes().u8(0x19).vbi(props.length).raw(props).toByteArray());
    }

    private RawClient connectedAsAlice() throws Exception {
        RawClient client = broker.raw();
        RawClient.Packet connAck = client.send(RawClient.connect(5, "token", 0x02, 60, authProperties("alice")))
                .read();
        assertEquals(CONNACK, connAck.type());
        assertEquals(0, connAck.u8(1), "alice is in");
        return client;
    }

    @Test
    void reAuthenticatingAsTheSameUserIsAnsweredWithAuthSuccess() throws Exception {
        try (RawClient client = connectedAsAlice()) {
            RawClient.Packet answer = client.send(reauth("alice")).read();
            assertEquals(AUTH, answer.type());
            assertEquals(0x00, answer.u8(0), "success");
        }
    }

    @Test
    void reAuthenticatingAsAnotherUserEndsTheConnectionWithNotAuthorized() throws Exception {
        try (RawClient client = connectedAsAlice()) {
            RawClient.Packet answer = client.send(reauth("bob")).read();
            assertEquals(DISCONNECT, answer.type());
            assertEquals(0x87, answer.u8(0), "not authorized");
            assertTrue(client.closedByBroker());
        }
        assertEquals(1, broker.broker().metrics().get(BrokerCounter.DISCONNECTS_NOT_AUTHORIZED));
    }
}
