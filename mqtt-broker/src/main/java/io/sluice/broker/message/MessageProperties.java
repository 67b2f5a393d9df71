package io.sluice.broker.message;

import java.util.List;
import java.util.Objects;

/**
 * The MQTT 5 properties that belong to an application message and travel with it to every
 * subscriber (MQTT 5 §3.3.2.3). Per-hop properties (Topic Alias, Subscription Identifier) are
 * not here: they are chosen per delivery. Immutable; {@link #NONE} stands for "no properties",
 * which is all an MQTT 3.x message ever has.
 *
 * @param payloadFormat   0 unspecified bytes, 1 UTF-8 text, -1 absent
 * @param expiryInterval  Message Expiry Interval in seconds, or -1 when the message never expires
 * @param contentType     MIME type, or null
 * @param responseTopic   request/response topic, or null
 * @param correlationData request/response correlation bytes, or null
 * @param userProperties  user properties in the order received, never null
 */
public record MessageProperties(int payloadFormat, long expiryInterval, String contentType,
                                String responseTopic, byte[] correlationData,
                                List<UserProperty> userProperties) {
    public static final MessageProperties NONE = new MessageProperties(-1, -1, null, null, null, List.of());

    public MessageProperties {
        userProperties = List.copyOf(Objects.requireNonNull(userProperties, "userProperties"));
    }

    public boolean hasExpiry() {
        return expiryInterval >= 0;
    }
}
