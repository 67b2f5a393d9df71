package io.sluice.broker.transport;

import io.sluice.net.ListenerSpec;
import io.sluice.net.tls.TlsContext;
import io.sluice.net.tls.TlsSettings;
import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.net.limits.Rate;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.security.AclAuthorizer;
import io.sluice.broker.security.AclRule;
import io.sluice.broker.security.AclSubject;
import io.sluice.net.auth.Authenticator;
import io.sluice.broker.security.Authorizer;
import io.sluice.net.auth.PasswordAuthenticator;
import io.sluice.broker.security.TopicPattern;
import io.sluice.testing.Command;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.Pki;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TLS and mutual TLS with certificates made by a throwaway CA, real handshakes, real clients. */
class TlsTest {
    @TempDir
    Path dir;
    private Pki pki;
    private Pki.Issued server;
    private TestBroker broker;

    @BeforeEach
    void issue() throws Exception {
        pki = Pki.create(dir, "Sluice Test CA");
        server = pki.server("broker");
    }

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private TlsContext start(Broker engine, boolean verifyPeer, boolean failIfNoPeerCert, boolean certAsUser)
            throws IOException {
        TlsContext tls = new TlsContext(new TlsSettings(server.keyFile(), server.certFile(), pki.caFile(), null,
                verifyPeer, failIfNoPeerCert, certAsUser));
        broker = new TestBroker(engine, new ListenerSpec("ssl", TestBroker.loopback(), tls, null, 0, Rate.UNLIMITED));
        return tls;
    }

    private SSLSocket socket(SSLContext context, String protocol) throws IOException {
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(broker.host(), broker.port());
        if (protocol != null) {
            socket.setEnabledProtocols(new String[] {protocol});
        }
        socket.startHandshake();
        return socket;
    }

    private Mqtt5BlockingClient client(String id, Pki.Issued certificate) throws Exception {
        var ssl = MqttClient.builder().useMqttVersion5().identifier(id).serverHost(broker.host())
                .serverPort(broker.port()).sslConfig().trustManagerFactory(pki.trust());
        if (certificate != null) {
            ssl = ssl.keyManagerFactory(pki.keys(certificate));
        }
        return ssl.applySslConfig().buildBlocking();
    }

    @Test
    void mqttWorksOverTls12AndTls13() throws Exception {
        start(Broker.open(MqttSettings.defaults()), false, false, false);
        for (String protocol : List.of("TLSv1.2", "TLSv1.3")) {
            try (SSLSocket socket = socket(pki.clientContext(null), protocol);
                 RawClient client = new RawClient(socket)) {
                assertEquals(protocol, socket.getSession().getProtocol());
                assertEquals(server.certificate(), socket.getSession().getPeerCertificates()[0]);
                RawClient.Packet connAck = client.send(RawClient.connect(4, "raw-" + protocol)).read();
                assertEquals(RawClient.CONNACK, connAck.type());
                assertEquals(0, connAck.u8(1));
            }
        }
        Mqtt5BlockingClient hive = client("hive-tls", null);
        hive.connect();
        var inbox = Clients.inbox(hive);
        hive.subscribeWith().topicFilter("tls/t").qos(MqttQos.AT_LEAST_ONCE).send();
        hive.publishWith().topic("tls/t").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {42}).send();
        assertEquals(42, inbox.next().getPayloadAsBytes()[0]);
        hive.disconnect();
    }

    /**
     * A client that reconnects resumes its session instead of a full handshake, in TLS 1.3 (by
     * ticket) and 1.2 (by ticket, or by session id for clients without tickets). OpenSSL's own
     * client says which handshake it got.
     */
    @Test
    void aReconnectingClientResumesItsTlsSession() throws Exception {
        String openssl = Command.require("openssl", "openssl");
        start(Broker.open(MqttSettings.defaults()), false, false, false);
        for (String protocol : List.of("-tls1_2", "-tls1_3")) {
            Path session = dir.resolve("session" + protocol);
            String first = connectWithOpenSsl(openssl, protocol, "-sess_out", session);
            assertTrue(first.contains("New, TLSv1"), first);
            String again = connectWithOpenSsl(openssl, protocol, "-sess_in", session);
            assertTrue(again.contains("Reused, TLSv1"), protocol + " resumed:\n" + again);
        }
    }

    /** CONNECT, then DISCONNECT: the broker closes, so s_client has read the CONNACK and any ticket. */
    private String connectWithOpenSsl(String openssl, String protocol, String sessionOption, Path session)
            throws Exception {
        byte[] input = new RawClient.Bytes().raw(RawClient.connect(4, "openssl" + protocol))
                .raw(RawClient.packet(0xE0, new byte[0])).toByteArray();
        Command.Result result = Command.run(List.of(openssl, "s_client", protocol, "-ign_eof",
                "-connect", broker.host() + ":" + broker.port(), sessionOption, session.toString()), input, 30);
        assertEquals(0, result.exitCode(), result.stderr());
        return result.stdout();
    }

    @Test
    void mutualTlsRefusesAClientWithoutACertificateAndAdmitsOneWithIt() throws Exception {
        start(Broker.open(MqttSettings.defaults()), true, true, false);

        assertThrows(RuntimeException.class, () -> client("anonymous", null).connect());
        Eventually.await(() -> broker.broker().metrics().get(BrokerCounter.TLS_HANDSHAKES_FAILED) >= 1,
                "the failed handshake is counted");

        Pki stranger = Pki.create(Files.createDirectory(dir.resolve("other")), "Other CA");
        Pki.Issued foreign = stranger.client("eve");
        SSLContext foreignContext = SSLContext.getInstance("TLS");
        foreignContext.init(stranger.keys(foreign).getKeyManagers(), pki.trust().getTrustManagers(), null);
        assertThrows(IOException.class, () -> {
            try (SSLSocket socket = socket(foreignContext, null); RawClient raw = new RawClient(socket)) {
                raw.send(RawClient.connect(4, "eve")).read(); // TLS 1.3 reports the refusal on first use
            }
        }, "a certificate from another CA is refused");

        Mqtt5BlockingClient trusted = client("trusted", pki.client("alice"));
        assertEquals(Mqtt5ConnAckReasonCode.SUCCESS, trusted.connect().getReasonCode());
        trusted.disconnect();
    }

    @Test
    void theCertificatesCommonNameIsTheUserNameAndAuthenticatesTheClient() throws Exception {
        AclAuthorizer acl = AclAuthorizer.of(List.of(new AclRule(true, new AclSubject.Everyone(),
                AclRule.Action.PUBSUB, List.of(TopicPattern.parse("users/%u/#")), 1)), false,
                Authorizer.DenyAction.IGNORE);
        Authenticator noAnonymous = new PasswordAuthenticator(false, null);
        start(new Broker(MqttSettings.defaults(), List.of(), noAnonymous, acl), true, false, true);

        Mqtt5BlockingClient alice = client("alice-device", pki.client("alice"));
        assertEquals(Mqtt5ConnAckReasonCode.SUCCESS, alice.connect().getReasonCode(), "no password needed");
        var inbox = Clients.inbox(alice);
        alice.subscribeWith().topicFilter("users/alice/#").qos(MqttQos.AT_LEAST_ONCE).send();
        alice.publishWith().topic("users/alice/temp").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {1}).send();
        assertEquals("users/alice/temp", inbox.next().getTopic().toString());
        Mqtt5PubAckException denied = assertThrows(Mqtt5PubAckException.class, () -> alice.publishWith()
                .topic("users/bob/temp").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {1}).send());
        assertEquals(Mqtt5PubAckReasonCode.NOT_AUTHORIZED, denied.getMqttMessage().getReasonCode());
        alice.disconnect();

        Mqtt5ConnAckException noCertificate = assertThrows(Mqtt5ConnAckException.class,
                () -> client("no-cert", null).connect());
        assertEquals(Mqtt5ConnAckReasonCode.NOT_AUTHORIZED, noCertificate.getMqttMessage().getReasonCode(),
                "without a certificate the CONNECT's credentials count, and there are none");
    }

    @Test
    void aReloadGivesNewConnectionsTheNewCertificateAndARenewalHalfDoneIsRefused() throws Exception {
        TlsContext tls = start(Broker.open(MqttSettings.defaults()), false, false, false);
        SSLSocket before = socket(pki.clientContext(null), null);
        RawClient old = new RawClient(before);
        old.send(RawClient.connect(4, "old")).read();

        Pki.Issued renewed = pki.server("broker-renewed");
        Files.copy(renewed.certFile(), server.certFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        IOException mismatch = assertThrows(IOException.class, tls::reload, "new certificate, old key");
        assertTrue(mismatch.getMessage().contains("does not belong"), mismatch.getMessage());
        assertEquals(server.certificate(), tls.certificate(), "the previous context stays");

        Files.copy(renewed.keyFile(), server.keyFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        tls.reload();

        try (SSLSocket after = socket(pki.clientContext(null), null)) {
            X509Certificate seen = (X509Certificate) after.getSession().getPeerCertificates()[0];
            assertEquals(renewed.certificate(), seen);
            assertNotEquals(server.certificate().getSerialNumber(), seen.getSerialNumber());
        }
        old.send(RawClient.pingreq());
        assertEquals(13, old.read().type(), "the open connection keeps working: PINGRESP");
        old.close();
    }

    @Test
    void aMissingOrWrongFileIsNamedInTheError() throws Exception {
        Files.writeString(dir.resolve("rsa.pem"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        IOException pkcs1 = assertThrows(IOException.class, () -> new TlsContext(new TlsSettings(
                dir.resolve("rsa.pem"), server.certFile(), null, null, false, false, false)));
        assertTrue(pkcs1.getMessage().contains("rsa.pem") && pkcs1.getMessage().contains("openssl pkcs8"),
                pkcs1.getMessage());
        IOException missing = assertThrows(IOException.class, () -> new TlsContext(new TlsSettings(
                server.keyFile(), dir.resolve("nope.pem"), null, null, false, false, false)));
        assertTrue(missing.getMessage().contains("nope.pem"), missing.getMessage());
    }

    @Test
    void anEncryptedKeyIsReadWithItsPassword() throws Exception {
        Path encrypted = dir.resolve("encrypted-key.pem");
        Files.writeString(encrypted, Pki.pem("ENCRYPTED PRIVATE KEY", EncryptedKeys.encrypt(server.key(), "s3cret")));
        TlsContext tls = new TlsContext(new TlsSettings(encrypted, server.certFile(), null, "s3cret", false, false,
                false));
        assertEquals(server.certificate(), tls.certificate());
        IOException wrong = assertThrows(IOException.class, () -> new TlsContext(new TlsSettings(encrypted,
                server.certFile(), null, "guess", false, false, false)));
        assertTrue(wrong.getMessage().contains("key_password"), wrong.getMessage());
    }
}
