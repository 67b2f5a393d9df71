package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttVersion;
import io.sluice.broker.session.Session;
import io.sluice.broker.session.Will;
import io.sluice.net.auth.ClientIdentity;

import java.util.Objects;

/**
 * The client of one connection as the broker accepted it: made once, when CONNACK goes out, and
 * never changed for the life of the connection. The topic aliases, the throttle and the session
 * change inside; which ones belong to the connection does not.
 *
 * <p>Re-authentication (MQTT 5 §4.12.1) runs the authentication exchange again but does not change
 * who the client is: the identity that was authorised at CONNECT stays, and a re-authentication
 * that names another user ends the connection ({@link #isConfirmedBy}).
 *
 * @param version    the protocol version
 * @param identity   client id, authenticated user name and address, as authorisation sees them
 * @param authMethod the MQTT 5 Authentication Method it authenticated with, or null (no re-authentication then)
 * @param session    the session attached to this connection
 * @param will       the authorised will, published if the connection ends without a normal DISCONNECT; or null
 * @param aliases    the topic aliases of both directions (empty maps for MQTT 3.x)
 * @param throttle   its publish rate limits, or null when there are none
 * @param limits     what it accepts from the broker
 */
record ConnectedClient(MqttVersion version, ClientIdentity identity, String authMethod, Session session, Will will,
                       TopicAliases aliases, PublishThrottle throttle, ClientLimits limits) {

    boolean isMqtt5() {
        return version == MqttVersion.MQTT_5;
    }

    String clientId() {
        return identity.clientId();
    }

    /** Whether a re-authentication that ended as {@code username} confirms this client's identity. */
    boolean isConfirmedBy(String username) {
        return Objects.equals(username, identity.username());
    }
}
