package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectPayload;
import io.netty.handler.codec.mqtt.MqttConnectVariableHeader;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.codec.InboundProperties;
import io.sluice.broker.codec.Utf8;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.session.Session;
import io.sluice.broker.session.Will;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicName;
import io.sluice.net.auth.ClientIdentity;

import java.net.SocketAddress;
import java.util.UUID;

import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_PAYLOAD_FORMAT_INVALID;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_TOPIC_NAME_INVALID;

/**
 * What a CONNECT asks for (MQTT 5 §3.1), read and checked once when it arrives and kept until
 * CONNACK, however many AUTH packets an enhanced authentication takes. Immutable.
 *
 * @param version          the protocol version
 * @param identity         who the client says it is: its client id (assigned if it sent none), its user
 *                         name (a verified certificate's CN with {@code peer_cert_as_username}, else
 *                         CONNECT's) and its address; authentication may still name another user
 * @param assignedId       the broker chose the client id, so CONNACK must tell the client
 * @param certified        the user name is a verified client certificate's, which authenticates it
 * @param password         the password, or null
 * @param authMethod       the MQTT 5 Authentication Method, or null for a password (or no) login
 * @param authData         the first Authentication Data, or null
 * @param cleanStart       Clean Start (Clean Session in MQTT 3.1.1)
 * @param keepAliveSeconds the client's keepalive, 0 for none
 * @param sessionExpiry    the Session Expiry Interval asked for, before {@code max_session_expiry_interval};
 *                         for MQTT 3.x, 0 with Clean Session and {@code session_expiry_interval} without
 * @param limits           what the client accepts from the broker
 * @param will             the will, not yet authorised, or null
 */
record ConnectRequest(MqttVersion version, ClientIdentity identity, boolean assignedId, boolean certified,
                      byte[] password, String authMethod, byte[] authData, boolean cleanStart,
                      int keepAliveSeconds, long sessionExpiry, ClientLimits limits, Will will) {

    /**
     * Reads {@code msg}. A CONNECT that breaks the protocol throws {@link ProtocolViolation}; one
     * the broker turns down (empty client id without clean start, invalid will) throws
     * {@link ConnectRefused}.
     *
     * @param certificateUser the verified client certificate's CN with {@code peer_cert_as_username}, else null
     * @param longWillTopic   the Will Topic {@link ConnectPeek} read because the decoder could not, else null
     */
    static ConnectRequest read(MqttConnectMessage msg, String certificateUser, String longWillTopic,
                               SocketAddress address, MqttSettings settings) throws ProtocolViolation, ConnectRefused {
        MqttConnectVariableHeader header = msg.variableHeader();
        MqttConnectPayload payload = msg.payload();
        MqttVersion version = MqttVersion.fromProtocolNameAndLevel(header.name(), (byte) header.version());
        boolean v5 = version == MqttVersion.MQTT_5;
        MqttProperties props = header.properties();
        ClientLimits limits = v5 ? ClientLimits.read(props) : ClientLimits.MQTT3;
        String clientId = clientId(payload.clientIdentifier(), header.isCleanSession(), v5);
        String username = certificateUser != null ? certificateUser : payload.userName();
        if (!v5 && header.hasPassword() && !header.hasUserName()) {
            throw ProtocolViolation.protocolError("password without user name");
        }
        String willTopic = payload.willTopic() != null ? payload.willTopic() : longWillTopic;
        Will will = readWill(header, payload, willTopic, v5, clientId, settings.maxTopicLevels());
        return new ConnectRequest(version, new ClientIdentity(clientId, username, address),
                payload.clientIdentifier().isEmpty(), certificateUser != null, payload.passwordInBytes(),
                InboundProperties.string(props, MqttProperties.AUTHENTICATION_METHOD),
                InboundProperties.binary(props, MqttProperties.AUTHENTICATION_DATA), header.isCleanSession(),
                header.keepAliveTimeSeconds(), sessionExpiry(header, v5, settings), limits, will);
    }

    boolean isMqtt5() {
        return version == MqttVersion.MQTT_5;
    }

    /** The client id CONNECT carries, or one the broker assigns; an empty one needs a clean start. */
    private static String clientId(String requested, boolean cleanStart, boolean v5) throws ConnectRefused {
        if (!requested.isEmpty()) {
            return requested;
        }
        if (!cleanStart) {
            throw new ConnectRefused(v5 ? CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID
                    : CONNECTION_REFUSED_IDENTIFIER_REJECTED, "empty client id without clean start");
        }
        return "sluice-" + UUID.randomUUID();
    }

    private static long sessionExpiry(MqttConnectVariableHeader header, boolean v5, MqttSettings settings) {
        if (v5) {
            return InboundProperties.integer(header.properties(), MqttProperties.SESSION_EXPIRY_INTERVAL, 0);
        }
        if (header.isCleanSession()) {
            return 0;
        }
        long configured = settings.sessionExpiryInterval();
        return configured == 0 ? Session.NEVER_EXPIRES : configured;
    }

    private static Will readWill(MqttConnectVariableHeader header, MqttConnectPayload payload, String topic,
                                 boolean v5, String clientId, int maxTopicLevels)
            throws ProtocolViolation, ConnectRefused {
        if (!header.isWillFlag()) {
            if (header.willQos() != 0 || header.isWillRetain()) {
                throw ProtocolViolation.protocolError("will QoS or will retain set without the will flag");
            }
            return null;
        }
        if (header.willQos() > 2) {
            throw ProtocolViolation.malformed("will QoS " + header.willQos());
        }
        if (topic == null) {
            throw ProtocolViolation.malformed("the will topic is not valid UTF-8");
        }
        validateWillTopic(topic, v5, maxTopicLevels);
        MqttProperties willProps = payload.willProperties();
        MessageProperties properties = InboundProperties.message(willProps);
        byte[] body = payload.willMessageInBytes();
        if (properties.payloadFormat() == 1 && !Utf8.isValid(body)) {
            throw new ConnectRefused(CONNECTION_REFUSED_PAYLOAD_FORMAT_INVALID,
                    "will payload is not valid UTF-8 but its format indicator says so");
        }
        long delay = InboundProperties.integer(willProps, MqttProperties.WILL_DELAY_INTERVAL, 0);
        Message message = new Message(topic, body, header.willQos(), header.isWillRetain(),
                properties, clientId, System.currentTimeMillis());
        return new Will(message, delay);
    }

    /** An invalid will topic is a protocol error in MQTT 3.x; MQTT 5 has a CONNACK code for it. */
    private static void validateWillTopic(String topic, boolean v5, int maxTopicLevels)
            throws ProtocolViolation, ConnectRefused {
        try {
            TopicName.validate(topic, maxTopicLevels);
        } catch (InvalidTopicException e) {
            if (!v5) {
                throw ProtocolViolation.protocolError(e.getMessage());
            }
            throw new ConnectRefused(CONNECTION_REFUSED_TOPIC_NAME_INVALID, e.getMessage());
        }
    }
}
