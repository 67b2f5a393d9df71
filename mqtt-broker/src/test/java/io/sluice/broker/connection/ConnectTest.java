package io.sluice.broker.connection;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5DisconnectException;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAck;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.sluice.broker.testing.RawClient.CONNACK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConnectTest {
    private TestBroker broker;

    @BeforeEach
    void start() {
        broker = TestBroker.start(MqttSettings.builder().maxKeepalive(30).build());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void anEmptyClientIdWithCleanStartGetsAnAssignedIdentifier() {
        Mqtt5BlockingClient client = Clients.v5(broker, "");
        Mqtt5ConnAck connAck = client.connect();
        assertTrue(connAck.getAssignedClientIdentifier().isPresent());
        assertTrue(connAck.getAssignedClientIdentifier().get().toString().startsWith("sluice-"));
        client.disconnect();
    }

    @Test
    void anEmptyClientIdWithoutCleanStartIsRejected() throws Exception {
        try (RawClient v3 = broker.raw(); RawClient v5 = broker.raw()) {
            RawClient.Packet connAck3 = v3.send(RawClient.connect(4, "", 0x00, 60, new byte[0])).read();
            assertEquals(CONNACK, connAck3.type());
            assertEquals(0x02, connAck3.u8(1), "MQTT 3.1.1: identifier rejected");
            assertTrue(v3.closedByBroker());

            RawClient.Packet connAck5 = v5.send(RawClient.connect(5, "", 0x00, 60, new byte[0])).read();
            assertEquals(0x85, connAck5.u8(1), "MQTT 5: client identifier not valid");
            assertTrue(v5.closedByBroker());
        }
    }

    @Test
    void mqtt31ClientsConnectWithTheOldProtocolName() throws Exception {
        try (RawClient client = broker.raw()) {
            RawClient.Packet connAck = client.send(RawClient.connect(3, "a-rather-long-mqtt31-client-id")).read();
            assertEquals(CONNACK, connAck.type());
            assertEquals(0, connAck.u8(1));
        }
    }

    @Test
    void anUnknownProtocolLevelIsRefusedWithTheVersionCode() throws Exception {
        try (RawClient client = broker.raw()) {
            RawClient.Packet connAck = client.send(RawClient.connect(9, "x")).read();
            assertEquals(CONNACK, connAck.type());
            assertEquals(0x01, connAck.u8(1), "unacceptable protocol version");
            assertTrue(client.closedByBroker());
        }
    }

    @Test
    void aSecondConnectionWithTheSameIdTakesOverAndTheFirstGetsReason0x8E() throws Exception {
        CompletableFuture<Throwable> firstDisconnected = new CompletableFuture<>();
        Mqtt5BlockingClient first = MqttClient.builder().useMqttVersion5().identifier("same-id")
                .serverHost(broker.host()).serverPort(broker.port())
                .addDisconnectedListener(ctx -> firstDisconnected.complete(ctx.getCause()))
                .buildBlocking();
        first.connect();
        Mqtt5BlockingClient second = Clients.v5(broker, "same-id");
        second.connect();

        Throwable cause = firstDisconnected.get(5, TimeUnit.SECONDS);
        assertTrue(cause instanceof Mqtt5DisconnectException, String.valueOf(cause));
        assertEquals(Mqtt5DisconnectReasonCode.SESSION_TAKEN_OVER,
                ((Mqtt5DisconnectException) cause).getMqttMessage().getReasonCode());
        assertTrue(second.getState().isConnected());
        assertEquals(1, broker.broker().metrics().get(BrokerCounter.TAKEOVERS));
        second.disconnect();
    }

    @Test
    void mqtt5ClientsAreToldTheServerKeepAliveWhenTheyAskForMore() {
        Mqtt5BlockingClient client = Clients.v5(broker, "keepalive");
        Mqtt5ConnAck connAck = client.connectWith().keepAlive(600).send();
        assertEquals(30, connAck.getServerKeepAlive().orElseThrow());
        client.disconnect();
    }

    @Test
    void connAckAnnouncesTheServerLimits() throws Exception {
        try (RawClient client = broker.raw()) {
            RawClient.Packet connAck = client.send(RawClient.connect(5, "limits")).read();
            Map<Integer, List<Object>> props = RawClient.properties(connAck.body(), 2);
            assertEquals(1024, props.get(0x21).get(0), "Receive Maximum");
            assertEquals(1024L * 1024, props.get(0x27).get(0), "Maximum Packet Size");
            assertEquals(1024, props.get(0x22).get(0), "Topic Alias Maximum");
        }
    }

    @Test
    void aClientSilentForOneAndAHalfKeepalivesIsDisconnectedAndItsWillPublished() throws Exception {
        Mqtt5BlockingClient watcher = Clients.v5(broker, "watcher");
        watcher.connect();
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(watcher);
        watcher.subscribeWith().topicFilter("wills/#").qos(MqttQos.AT_LEAST_ONCE).send();

        try (RawClient silent = broker.raw()) {
            // flags: will flag 0x04, will QoS 1 (0x08), clean start 0x02; keepalive 1 s
            RawClient.Bytes vh = new RawClient.Bytes().string("MQTT").u8(4).u8(0x02 | 0x04 | 0x08).u16(1)
                    .string("silent").string("wills/silent").string("gone");
            silent.send(RawClient.packet(0x10, vh.toByteArray()));
            assertEquals(0, silent.read().u8(1));
            long start = System.nanoTime();
            assertTrue(silent.closedByBroker());
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(elapsedMillis >= 1_000, "closed after " + elapsedMillis + " ms, before 1.5 keepalives");
        }
        Mqtt5Publish will = inbox.next();
        assertEquals("wills/silent", will.getTopic().toString());
        assertEquals("gone", new String(will.getPayloadAsBytes(), StandardCharsets.UTF_8));
        assertEquals(1, broker.broker().metrics().get(BrokerCounter.DISCONNECTS_KEEPALIVE));
        watcher.disconnect();
    }

    @Test
    void aConnectionThatNeverSendsConnectIsClosed() throws Exception {
        try (TestBroker quick = TestBroker.start(MqttSettings.builder().connectTimeoutMillis(300).build());
             RawClient idle = quick.raw()) {
            assertTrue(idle.closedByBroker());
        }
    }
}
