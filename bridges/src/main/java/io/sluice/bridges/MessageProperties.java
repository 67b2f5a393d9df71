package io.sluice.bridges;

import java.util.List;
import java.util.Objects;

/**
 * The MQTT 5 application properties a bridged message keeps (MQTT 5 §3.3.2.3), the bridge's own
 * copy of the broker's, so that this module does not depend on the broker. {@link #NONE} is what
 * every MQTT 3.x message has.
 *
 * @param payloadFormat   0 bytes, 1 UTF-8 text, -1 absent
 * @param expiryInterval  Message Expiry Interval in seconds, -1 when the message never expires
 * @param contentType     MIME type, or null
 * @param responseTopic   request/response topic, or null
 * @param correlationData request/response correlation bytes, or null
 * @param userProperties  user properties in order, never null
 */
public record MessageProperties(int payloadFormat, long expiryInterval, String contentType, String responseTopic,
                                byte[] correlationData, List<UserProperty> userProperties) {
    public static final MessageProperties NONE = new MessageProperties(-1, -1, null, null, null, List.of());

    public MessageProperties {
        userProperties = List.copyOf(Objects.requireNonNull(userProperties, "userProperties"));
    }

    /** Whether there is nothing to carry. */
    public boolean isEmpty() {
        return payloadFormat < 0 && expiryInterval < 0 && contentType == null && responseTopic == null
                && correlationData == null && userProperties.isEmpty();
    }
}
