package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectPayload;
import io.netty.handler.codec.mqtt.MqttConnectVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttReasonCodes;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.handler.timeout.IdleStateHandler;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.limits.PublishThrottle;
import io.sluice.broker.codec.InboundProperties;
import io.sluice.broker.codec.Utf8;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.routing.InvalidTopicException;
import io.sluice.broker.routing.TopicName;
import io.sluice.net.auth.AuthExchange;
import io.sluice.net.auth.Authenticator;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.broker.session.Session;
import io.sluice.broker.session.SessionRegistry;
import io.sluice.broker.session.Will;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_ACCEPTED;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED_5;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_PAYLOAD_FORMAT_INVALID;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_TOPIC_NAME_INVALID;

/**
 * CONNECT and DISCONNECT (MQTT 5 §3.1, §3.14): checks the client's parameters, authenticates
 * (user name and password, or a verified client certificate's CN; enhanced authentication is
 * handed to {@link AuthHandler}), attaches the session (taking it over from another connection
 * if need be), answers CONNACK, arms the keepalive, and resends whatever the session still owes
 * the client. Stateless.
 */
final class ConnectHandler {
    /** What CONNECT asked for, kept until authentication completes. */
    record Pending(MqttConnectVariableHeader header, Will will, boolean assignedId) {
    }

    private ConnectHandler() {
    }

    /** Handles the first packet; returns true if the client is now connected. */
    static boolean connect(Connection c, MqttConnectMessage msg) throws ProtocolViolation {
        MqttConnectVariableHeader header = msg.variableHeader();
        MqttConnectPayload payload = msg.payload();
        c.version = MqttVersion.fromProtocolNameAndLevel(header.name(), (byte) header.version());
        c.bridge = c.version != MqttVersion.MQTT_5 && BridgeBit.isBridge(c.ctx.channel());
        MqttProperties props = header.properties();
        readClientLimits(c, props);

        String clientId = payload.clientIdentifier();
        boolean assigned = clientId.isEmpty();
        if (assigned) {
            if (!header.isCleanSession()) {
                c.refuse(c.isMqtt5() ? CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID
                        : CONNECTION_REFUSED_IDENTIFIER_REJECTED, "empty client id without clean start");
                return false;
            }
            clientId = "sluice-" + UUID.randomUUID();
        }
        String certificateUser = c.certificateUsername();
        c.identity = new ClientIdentity(clientId, certificateUser != null ? certificateUser : payload.userName(),
                c.remoteAddress());
        if (!c.isMqtt5() && header.hasPassword() && !header.hasUserName()) {
            throw ProtocolViolation.protocolError("password without user name");
        }
        Will will;
        try {
            will = readWill(c, header, payload);
        } catch (InvalidTopicException e) {
            if (!c.isMqtt5()) {
                throw ProtocolViolation.protocolError(e.getMessage());
            }
            c.refuse(CONNECTION_REFUSED_TOPIC_NAME_INVALID, e.getMessage());
            return false;
        } catch (IllegalArgumentException e) {
            c.refuse(CONNECTION_REFUSED_PAYLOAD_FORMAT_INVALID, e.getMessage());
            return false;
        }
        return authenticate(c, new Pending(header, will, assigned), payload.passwordInBytes(), certificateUser != null);
    }

    /**
     * Checks the password, or trusts a verified client certificate, or starts the enhanced
     * authentication CONNECT asks for; returns true once the client is connected.
     */
    private static boolean authenticate(Connection c, Pending pending, byte[] password, boolean certified) {
        MqttProperties props = pending.header().properties();
        String method = InboundProperties.string(props, MqttProperties.AUTHENTICATION_METHOD);
        if (method != null) {
            return AuthHandler.start(c, pending, method, InboundProperties.binary(props,
                    MqttProperties.AUTHENTICATION_DATA));
        }
        if (!certified) {
            Authenticator.Verdict verdict = c.broker.authenticator().authenticate(c.identity, password);
            if (verdict != Authenticator.Verdict.ACCEPTED) {
                refuseCredentials(c, verdict, verdict == Authenticator.Verdict.NOT_AUTHORIZED
                        ? "no user name, and anonymous access is off"
                        : "bad user name or password (user '" + c.identity.username() + "')");
                return false;
            }
        }
        accept(c, pending, null);
        return true;
    }

    /** Refuses CONNECT for failed authentication with the code the protocol version has for it. */
    static void refuseCredentials(Connection c, Authenticator.Verdict verdict, String reason) {
        c.broker.metrics().increment(BrokerCounter.CONNECTIONS_REFUSED_AUTH);
        boolean bad = verdict == Authenticator.Verdict.BAD_CREDENTIALS;
        if (c.isMqtt5()) {
            c.refuse(bad ? CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD : CONNECTION_REFUSED_NOT_AUTHORIZED_5, reason);
        } else {
            c.refuse(bad ? CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD : CONNECTION_REFUSED_NOT_AUTHORIZED, reason);
        }
    }

    private static void readClientLimits(Connection c, MqttProperties props) throws ProtocolViolation {
        if (!c.isMqtt5()) {
            return;
        }
        long receiveMaximum = InboundProperties.integer(props, MqttProperties.RECEIVE_MAXIMUM, 65535);
        long maxPacketSize = InboundProperties.integer(props, MqttProperties.MAXIMUM_PACKET_SIZE, Long.MAX_VALUE);
        long problemInformation = InboundProperties.integer(props, MqttProperties.REQUEST_PROBLEM_INFORMATION, 1);
        if (receiveMaximum == 0) {
            throw ProtocolViolation.protocolError("Receive Maximum of 0");
        }
        if (maxPacketSize == 0) {
            throw ProtocolViolation.protocolError("Maximum Packet Size of 0");
        }
        if (problemInformation > 1) {
            throw ProtocolViolation.protocolError("Request Problem Information of " + problemInformation);
        }
        c.clientReceiveMaximum = (int) receiveMaximum;
        c.clientMaximumPacketSize = maxPacketSize;
        c.problemInformation = problemInformation == 1;
    }

    private static Will readWill(Connection c, MqttConnectVariableHeader header, MqttConnectPayload payload)
            throws InvalidTopicException, ProtocolViolation {
        if (!header.isWillFlag()) {
            if (header.willQos() != 0 || header.isWillRetain()) {
                throw ProtocolViolation.protocolError("will QoS or will retain set without the will flag");
            }
            return null;
        }
        if (header.willQos() > 2) {
            throw ProtocolViolation.malformed("will QoS " + header.willQos());
        }
        TopicName.validate(payload.willTopic(), c.broker.settings().maxTopicLevels());
        MqttProperties willProps = payload.willProperties();
        MessageProperties properties = InboundProperties.message(willProps);
        byte[] body = payload.willMessageInBytes();
        if (properties.payloadFormat() == 1 && !Utf8.isValid(body)) {
            throw new IllegalArgumentException("will payload is not valid UTF-8 but its format indicator says so");
        }
        long delay = InboundProperties.integer(willProps, MqttProperties.WILL_DELAY_INTERVAL, 0);
        Message message = new Message(payload.willTopic(), body, header.willQos(), header.isWillRetain(),
                properties, c.identity.clientId(), System.currentTimeMillis());
        return new Will(message, delay);
    }

    /**
     * The client is authenticated: attach its session and answer CONNACK (with the exchange's
     * final Authentication Data, if any). A will the client may not publish is dropped, not refused.
     */
    static void accept(Connection c, Pending pending, byte[] authData) {
        MqttConnectVariableHeader header = pending.header();
        boolean assignedId = pending.assignedId();
        Will will = pending.will();
        if (will != null && !c.broker.authorizer().mayPublish(c.identity, will.message().topic())) {
            will = null;
        }
        MqttSettings settings = c.broker.settings();
        long requestedExpiry = sessionExpiry(c, header, settings);
        long expiry = settings.maxSessionExpiryInterval() > 0
                ? Math.min(requestedExpiry, settings.maxSessionExpiryInterval()) : requestedExpiry;
        int keepAlive = header.keepAliveTimeSeconds();
        int serverKeepAlive = c.isMqtt5() && keepAlive > settings.maxKeepalive() ? settings.maxKeepalive() : keepAlive;

        c.will = will;
        c.aliases = new TopicAliases(c.isMqtt5() ? settings.topicAliasMaximum() : 0,
                c.isMqtt5() ? (int) InboundProperties.integer(header.properties(),
                        MqttProperties.TOPIC_ALIAS_MAXIMUM, 0) : 0);
        SessionRegistry.Attachment attachment = c.broker.sessions().attach(
                c.identity.clientId(), header.isCleanSession(), expiry, c);
        c.session = attachment.session();
        c.throttle = PublishThrottle.of(settings.messagesRate(), settings.bytesRate(), System.nanoTime());
        c.broker.connectedClients().incrementAndGet();
        c.broker.metrics().increment(BrokerCounter.CONNECTIONS_ACCEPTED);

        MqttProperties props = new MqttProperties();
        if (c.isMqtt5()) {
            addConnAckProperties(props, settings, expiry != requestedExpiry ? expiry : -1,
                    serverKeepAlive != keepAlive ? serverKeepAlive : -1,
                    assignedId ? c.identity.clientId() : null);
            if (c.authMethod != null) {
                props.add(new MqttProperties.StringProperty(MqttProperties.AUTHENTICATION_METHOD, c.authMethod));
                if (authData != null) {
                    props.add(new MqttProperties.BinaryProperty(MqttProperties.AUTHENTICATION_DATA, authData));
                }
            }
        }
        c.ctx.write(MqttMessageBuilders.connAck().returnCode(CONNECTION_ACCEPTED)
                .sessionPresent(attachment.sessionPresent()).properties(props).build());
        armKeepAlive(c, serverKeepAlive, settings.keepaliveMultiplier());
        c.outbound.resume();
    }

    private static long sessionExpiry(Connection c, MqttConnectVariableHeader header, MqttSettings settings) {
        if (c.isMqtt5()) {
            return InboundProperties.integer(header.properties(), MqttProperties.SESSION_EXPIRY_INTERVAL, 0);
        }
        if (header.isCleanSession()) {
            return 0;
        }
        long configured = settings.sessionExpiryInterval();
        return configured == 0 ? Session.NEVER_EXPIRES : configured;
    }

    private static void addConnAckProperties(MqttProperties props, MqttSettings settings, long expiry,
                                             int serverKeepAlive, String assignedClientId) {
        props.add(new MqttProperties.IntegerProperty(MqttProperties.RECEIVE_MAXIMUM, settings.receiveMaximum()));
        props.add(new MqttProperties.IntegerProperty(MqttProperties.MAXIMUM_PACKET_SIZE, settings.maxPacketSize()));
        props.add(new MqttProperties.IntegerProperty(MqttProperties.TOPIC_ALIAS_MAXIMUM,
                settings.topicAliasMaximum()));
        if (expiry >= 0) {
            props.add(new MqttProperties.IntegerProperty(MqttProperties.SESSION_EXPIRY_INTERVAL, (int) expiry));
        }
        if (serverKeepAlive >= 0) {
            props.add(new MqttProperties.IntegerProperty(MqttProperties.SERVER_KEEP_ALIVE, serverKeepAlive));
        }
        if (assignedClientId != null) {
            props.add(new MqttProperties.StringProperty(MqttProperties.ASSIGNED_CLIENT_IDENTIFIER, assignedClientId));
        }
    }

    /** Replaces the CONNECT timeout with the keepalive: silence for keepalive × multiplier closes (MQTT 5 §3.1.2.10). */
    private static void armKeepAlive(Connection c, int keepAliveSeconds, double multiplier) {
        if (keepAliveSeconds == 0) {
            c.ctx.pipeline().remove(IdleStateHandler.class);
            return;
        }
        long readerIdleMillis = (long) (keepAliveSeconds * 1000L * multiplier);
        c.ctx.pipeline().replace(IdleStateHandler.class, "idle",
                new IdleStateHandler(readerIdleMillis, 0, 0, TimeUnit.MILLISECONDS));
    }

    /** A DISCONNECT from the client: MQTT 5 may change the session expiry and ask for the will. */
    static void disconnect(Connection c, MqttMessage msg) throws ProtocolViolation {
        if (c.isMqtt5() && msg.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader header) {
            long expiry = InboundProperties.integer(header.properties(), MqttProperties.SESSION_EXPIRY_INTERVAL, -1);
            if (expiry > 0 && c.session.expiryIntervalSeconds() == 0) {
                throw ProtocolViolation.protocolError("Session Expiry Interval set on DISCONNECT after 0 at CONNECT");
            }
            if (expiry >= 0) {
                long cap = c.broker.settings().maxSessionExpiryInterval();
                c.session.expiryIntervalSeconds(cap > 0 ? Math.min(expiry, cap) : expiry);
            }
            if (header.reasonCode() == 0x04) {
                c.closeWithWill();
                return;
            }
        }
        c.closeNormally();
    }
}
