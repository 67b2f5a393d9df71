package io.sluice.streams;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.sluice.storage.Header;
import io.sluice.storage.Record;

/**
 * How an MQTT message becomes a stream record, and back:
 * <ul>
 *  <li>key: the MQTT topic, UTF-8;</li>
 *  <li>value: the payload;</li>
 *  <li>timestamp: the capture time, epoch milliseconds;</li>
 *  <li>headers, in this order: {@value #QOS} (ASCII {@code 0}, {@code 1} or {@code 2}),
 *      {@value #RETAIN} ({@code 0} or {@code 1}), {@value #CLIENT_ID} (UTF-8; left out for a message
 *      the broker made), then the MQTT 5 user properties, each as a header of its own name.</li>
 * </ul>
 * A record produced by a Kafka client is stored as sent; when it is published to MQTT, the same
 * headers, if present, give its QoS and RETAIN flag.
 */
public final class StreamRecords {
    /** Header carrying the QoS of the PUBLISH. */
    public static final String QOS = "mqtt.qos";
    /** Header carrying the RETAIN flag of the PUBLISH. */
    public static final String RETAIN = "mqtt.retain";
    /** Header carrying the publishing client id. */
    public static final String CLIENT_ID = "mqtt.client_id";

    private static final byte[][] DIGITS = {{'0'}, {'1'}, {'2'}};

    private StreamRecords() {
    }

    /** The stream record of a captured message. */
    public static Record of(CapturedMessage message) {
        List<Header> headers = new ArrayList<>(3 + message.userProperties().size());
        headers.add(new Header(QOS, DIGITS[message.qos()]));
        headers.add(new Header(RETAIN, DIGITS[message.retain() ? 1 : 0]));
        if (message.clientId() != null) {
            headers.add(new Header(CLIENT_ID, message.clientId().getBytes(StandardCharsets.UTF_8)));
        }
        headers.addAll(message.userProperties());
        return new Record(message.topic().getBytes(StandardCharsets.UTF_8), message.payload(), message.timestamp(),
                List.of(), headers);
    }

    /** The QoS a record asks for in its {@value #QOS} header, or {@code fallback} without a valid one. */
    public static int qos(Record record, int fallback) {
        byte[] value = first(record, QOS);
        if (value != null && value.length == 1 && value[0] >= '0' && value[0] <= '2') {
            return value[0] - '0';
        }
        return fallback;
    }

    /** Whether a record's {@value #RETAIN} header says {@code 1} (or {@code true}). */
    public static boolean retain(Record record) {
        byte[] value = first(record, RETAIN);
        if (value == null) {
            return false;
        }
        String text = new String(value, StandardCharsets.UTF_8);
        return text.equals("1") || text.equalsIgnoreCase("true");
    }

    private static byte[] first(Record record, String name) {
        for (Header header : record.headers()) {
            if (header.key().equals(name)) {
                return header.value();
            }
        }
        return null;
    }
}
