package io.sluice.streams;

import java.util.List;

import io.sluice.storage.Header;

/**
 * An MQTT PUBLISH as a stream captures it. The payload array is not copied: the broker never
 * changes a payload after ingress.
 *
 * @param topic          the MQTT topic name
 * @param payload        the payload bytes
 * @param timestamp      the capture time, epoch milliseconds
 * @param qos            the QoS it was published with
 * @param retain         its RETAIN flag
 * @param clientId       the publishing client's id, or null for a message the broker made
 * @param userProperties its MQTT 5 user properties in order, as headers (UTF-8 values); empty for 3.x
 */
public record CapturedMessage(String topic, byte[] payload, long timestamp, int qos, boolean retain, String clientId,
                              List<Header> userProperties) {
}
