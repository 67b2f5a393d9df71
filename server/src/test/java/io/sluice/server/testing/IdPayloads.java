package io.sluice.server.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * Messages of 8 KB on {@code data/x} that start with their id, for the disk-full tests: each
 * message fills the small disk quickly, and what was kept is counted by id at the end.
 */
public final class IdPayloads {
    /** Bytes of every payload. */
    public static final int BYTES = 8 * 1024;

    private IdPayloads() {
    }

    /** A payload that starts with {@code id|}; the rest does not compress to nothing. */
    public static byte[] payload(String id) {
        byte[] payload = new byte[BYTES];
        byte[] head = (id + "|").getBytes(StandardCharsets.UTF_8);
        System.arraycopy(head, 0, payload, 0, head.length);
        for (int i = head.length; i < payload.length; i++) {
            payload[i] = (byte) (i * 31 + id.hashCode());
        }
        return payload;
    }

    /** The id a payload starts with. */
    public static String id(byte[] payload) {
        String text = new String(payload, 0, Math.min(payload.length, 32), StandardCharsets.ISO_8859_1);
        return text.substring(0, text.indexOf('|'));
    }

    /** Publishes {@code id} with QoS 1 on {@code data/x}; true for PUBACK success, false for 0x97 Quota exceeded. */
    public static boolean publish(Mqtt5BlockingClient client, String id) {
        try {
            client.publishWith().topic("data/x").qos(MqttQos.AT_LEAST_ONCE).payload(payload(id)).send();
            return true;
        } catch (Mqtt5PubAckException e) {
            assertEquals(Mqtt5PubAckReasonCode.QUOTA_EXCEEDED, e.getMqttMessage().getReasonCode());
            return false;
        }
    }

    /**
     * Publishes {@code prefix-0} to {@code prefix-(count-1)}, asserting that each is acknowledged
     * ({@code when} says why it should be), and adds them to {@code acknowledged}.
     */
    public static void publishAcknowledged(Mqtt5BlockingClient client, String prefix, int count, String when,
                                           Set<String> acknowledged) {
        for (int i = 0; i < count; i++) {
            String id = prefix + "-" + i;
            assertTrue(publish(client, id), when + ": " + id + " acknowledged");
            acknowledged.add(id);
        }
    }

    /**
     * Publishes {@code full-0} to {@code full-9} on a full disk and asserts that at least 9 are
     * refused with 0x97 (the first may still fit in a page the disk had left); adds any that was
     * acknowledged to {@code acknowledged} and returns how many were refused.
     */
    public static int publishOnFullDisk(Mqtt5BlockingClient client, Set<String> acknowledged) {
        int refused = 0;
        for (int i = 0; i < 10; i++) {
            String id = "full-" + i;
            if (publish(client, id)) {
                acknowledged.add(id);
            } else {
                refused++;
            }
        }
        assertTrue(refused >= 9, refused + " of 10 publishes were refused with 0x97 on a full disk");
        return refused;
    }
}
