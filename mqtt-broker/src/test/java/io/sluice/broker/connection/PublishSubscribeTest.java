package io.sluice.broker.connection;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.TestBroker;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

class PublishSubscribeTest {
    private TestBroker broker;

    @BeforeEach
    void start() {
        broker = TestBroker.start();
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @ParameterizedTest(name = "publish QoS {0}, granted QoS {1} -> delivered at {2}")
    @CsvSource({"0,0,0", "0,2,0", "1,0,0", "1,1,1", "1,2,1", "2,0,0", "2,1,1", "2,2,2"})
    void mqtt5DeliversAtTheMinimumOfPublishAndGrantedQos(int publishQos, int grantedQos, int expected)
            throws Exception {
        Mqtt5BlockingClient sub = Clients.v5(broker, "sub");
        Mqtt5BlockingClient pub = Clients.v5(broker, "pub");
        sub.connect();
        pub.connect();
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(sub);
        sub.subscribeWith().topicFilter("sensors/+/temp").qos(MqttQos.fromCode(grantedQos)).send();

        pub.publishWith().topic("sensors/s1/temp").qos(MqttQos.fromCode(publishQos))
                .payload("21.5".getBytes(StandardCharsets.UTF_8)).send();

        Mqtt5Publish received = inbox.next();
        assertEquals("sensors/s1/temp", received.getTopic().toString());
        assertEquals(expected, received.getQos().getCode());
        assertArrayEquals("21.5".getBytes(StandardCharsets.UTF_8), received.getPayloadAsBytes());
        pub.disconnect();
        sub.disconnect();
    }

    @ParameterizedTest(name = "MQTT 3.1.1 QoS {0}")
    @CsvSource({"0", "1", "2"})
    void mqtt311DeliversEachQosEndToEnd(int qos) throws Exception {
        Mqtt3BlockingClient sub = Clients.v3(broker, "sub3");
        Mqtt3BlockingClient pub = Clients.v3(broker, "pub3");
        sub.connect();
        pub.connect();
        Clients.Inbox<Mqtt3Publish> inbox = Clients.inbox(sub);
        sub.subscribeWith().topicFilter("a/#").qos(MqttQos.EXACTLY_ONCE).send();

        for (int i = 0; i < 100; i++) {
            pub.publishWith().topic("a/b/" + i).qos(MqttQos.fromCode(qos)).payload(new byte[] {(byte) i}).send();
        }
        for (int i = 0; i < 100; i++) {
            Mqtt3Publish received = inbox.next();
            assertEquals("a/b/" + i, received.getTopic().toString());
            assertEquals(qos, received.getQos().getCode());
            assertArrayEquals(new byte[] {(byte) i}, received.getPayloadAsBytes());
        }
        assertNull(inbox.poll(200), "exactly one copy per message");
        pub.disconnect();
        sub.disconnect();
    }

    @Test
    void pahoExchangesMessagesAtEveryQos() throws Exception {
        org.eclipse.paho.client.mqttv3.MqttClient sub =
                new org.eclipse.paho.client.mqttv3.MqttClient(broker.uri(), "paho-sub", new MemoryPersistence());
        org.eclipse.paho.client.mqttv3.MqttClient pub =
                new org.eclipse.paho.client.mqttv3.MqttClient(broker.uri(), "paho-pub", new MemoryPersistence());
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        sub.setCallback(new MqttCallback() {
            @Override
            public void connectionLost(Throwable cause) {
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) {
                received.add(topic + "=" + new String(message.getPayload(), StandardCharsets.UTF_8)
                        + "@" + message.getQos());
            }

            @Override
            public void deliveryComplete(IMqttDeliveryToken token) {
            }
        });
        MqttConnectOptions options = new MqttConnectOptions();
        options.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        sub.connect(options);
        pub.connect(options);
        sub.subscribe("plant/#", 2);
        for (int qos = 0; qos <= 2; qos++) {
            pub.publish("plant/line" + qos, ("v" + qos).getBytes(StandardCharsets.UTF_8), qos, false);
        }
        for (int qos = 0; qos <= 2; qos++) {
            String message = received.poll(5, TimeUnit.SECONDS);
            assertNotNull(message);
            assertEquals("plant/line" + qos + "=v" + qos + "@" + qos, message);
        }
        pub.disconnect();
        sub.disconnect();
        pub.close();
        sub.close();
    }
}
