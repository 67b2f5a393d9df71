package io.sluice.broker.persistence;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.UserProperty;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.testing.Clients;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Strings as long as MQTT allows survive a restart; records of the earlier format still read. */
class StateAtTheLimitsTest {
    /** The longest UTF-8 string MQTT can carry. */
    private static final int LONGEST = 65_535;

    @TempDir
    Path dir;

    @Test
    void aTopicAndAUserPropertyOf65535BytesSurviveARestart() throws Exception {
        String topic = "t".repeat(LONGEST);
        String name = "n".repeat(LONGEST);
        String value = "é".repeat(LONGEST / 2) + "v"; // 65,535 bytes of two-byte characters and one more
        assertEquals(LONGEST, value.getBytes(StandardCharsets.UTF_8).length);
        try (PersistentBroker first = new PersistentBroker(dir)) {
            Mqtt5BlockingClient keeper = Clients.v5(first.broker, "keeper");
            keeper.connectWith().cleanStart(true).sessionExpiryInterval(3600).send();
            keeper.subscribeWith().topicFilter("#").qos(MqttQos.AT_LEAST_ONCE).send();
            keeper.disconnect();
            Eventually.await(() -> !first.engine().sessions().get("keeper").isOnline(), "keeper offline");

            Mqtt5BlockingClient pub = Clients.v5(first.broker, "pub");
            pub.connect();
            var ack = pub.publishWith().topic(topic).retain(true).qos(MqttQos.AT_LEAST_ONCE)
                    .payload("long".getBytes(StandardCharsets.UTF_8))
                    .userProperties().add(name, value).applyUserProperties().send();
            assertEquals(Mqtt5PubAckReasonCode.SUCCESS, ((Mqtt5PublishResult.Mqtt5Qos1Result) ack).getPubAck().getReasonCode());
            pub.disconnect();
            assertEquals(1, first.engine().sessions().get("keeper").queuedMessages());
        }
        try (PersistentBroker second = new PersistentBroker(dir)) {
            assertEquals(0, second.engine().metrics().get(BrokerCounter.STATE_RECORDS_UNREADABLE));
            assertNotNull(second.engine().router().retained().get(topic), "the retained message is back");

            Mqtt5BlockingClient keeper = Clients.v5(second.broker, "keeper");
            Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(keeper);
            keeper.connectWith().cleanStart(false).sessionExpiryInterval(3600).send();
            Mqtt5Publish queued = inbox.next();
            assertEquals(topic, queued.getTopic().toString());
            assertArrayEquals("long".getBytes(StandardCharsets.UTF_8), queued.getPayloadAsBytes());
            var property = queued.getUserProperties().asList().get(0);
            assertEquals(name, property.getName().toString());
            assertEquals(value, property.getValue().toString());
            keeper.disconnect();
        }
    }

    @Test
    void aRecordOfFormatVersion1StillReadsBack() {
        // version 1: u16 strings with 0xFFFF for null, u16 counts
        ByteArrayOutputStream v1 = new ByteArrayOutputStream();
        v1.write(1);
        v1String(v1, "plant/7");
        v1.write(1); // qos
        v1.write(1); // retain
        v1String(v1, "pub");
        long64(v1, 1_700_000_000_000L);
        v1.write(-1); // payload format: none
        long64(v1, -1); // no expiry
        v1.write(0xFF);
        v1.write(0xFF); // content type: null
        v1.write(0xFF);
        v1.write(0xFF); // response topic: null
        int32(v1, -1); // correlation: null
        v1.write(0);
        v1.write(1); // one user property
        v1String(v1, "site");
        v1String(v1, "north");
        int32(v1, 2);
        v1.write('o');
        v1.write('k');

        Message message = StateCodec.message(v1.toByteArray());
        assertEquals("plant/7", message.topic());
        assertTrue(message.retain());
        assertEquals("pub", message.publisherId());
        assertNull(message.properties().contentType());
        assertEquals(new UserProperty("site", "north"), message.properties().userProperties().get(0));
        assertArrayEquals("ok".getBytes(StandardCharsets.UTF_8), message.payload());
    }

    private static void v1String(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.write(b.length >>> 8);
        out.write(b.length);
        out.writeBytes(b);
    }

    private static void int32(ByteArrayOutputStream out, int v) {
        for (int shift = 24; shift >= 0; shift -= 8) {
            out.write(v >>> shift);
        }
    }

    private static void long64(ByteArrayOutputStream out, long v) {
        int32(out, (int) (v >>> 32));
        int32(out, (int) v);
    }
}
