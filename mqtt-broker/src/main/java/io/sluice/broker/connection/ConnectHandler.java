package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.codec.InboundProperties;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.session.Session;
import io.sluice.broker.session.ClientInfo;
import io.sluice.broker.session.SessionLimitReached;
import io.sluice.broker.session.SessionRegistry;
import io.sluice.broker.session.Will;
import io.sluice.net.auth.Authenticator;
import io.sluice.net.auth.ClientIdentity;


import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_ACCEPTED;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_QUOTA_EXCEEDED;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE;

/**
 * CONNECT and DISCONNECT (MQTT 5 §3.1, §3.14): reads CONNECT into a {@link ConnectRequest},
 * authenticates (user name and password, or a verified client certificate's CN; enhanced
 * authentication is handed to {@link AuthHandler}), attaches the session (taking it over from
 * another connection if need be), makes the {@link ConnectedClient}, answers CONNACK, arms the
 * keepalive, and resends whatever the session still owes the client. Stateless.
 */
final class ConnectHandler {
    private ConnectHandler() {
    }

    /** Handles the first packet; the client is connected once {@link #accept} ran. */
    static void connect(Connection c, MqttConnectMessage msg) throws ProtocolViolation, ConnectRefused {
        ConnectRequest request = ConnectRequest.read(msg, c.certificateUsername(),
                ConnectPeek.longWillTopic(c.ctx.channel()), c.remoteAddress(), c.broker.settings());
        c.request = request;
        if (request.authMethod() != null) {
            AuthHandler.start(c, request);
            return;
        }
        if (!request.certified()) {
            checkPassword(c, request);
        }
        accept(c, request.identity(), null, null);
    }

    private static void checkPassword(Connection c, ConnectRequest request) throws ConnectRefused {
        Authenticator.Verdict verdict = c.broker.authenticator().authenticate(request.identity(), request.password());
        if (verdict != Authenticator.Verdict.ACCEPTED) {
            throw ConnectRefused.credentials(verdict, request.isMqtt5(), verdict == Authenticator.Verdict.NOT_AUTHORIZED
                    ? "no user name, and anonymous access is off"
                    : "bad user name or password (user '" + request.identity().username() + "')");
        }
    }

    /**
     * The client of {@code c.request} is authenticated as {@code identity}: attach its session and
     * answer CONNACK (with the exchange's method and final Authentication Data, if any). A will
     * the client may not publish is dropped, not refused.
     */
    static void accept(Connection c, ClientIdentity identity, String authMethod, byte[] authData)
            throws ConnectRefused {
        ConnectRequest request = c.request;
        MqttSettings settings = c.broker.settings();
        long expiry = grantedExpiry(request, settings);
        int keepAlive = grantedKeepAlive(request, settings);
        SessionRegistry.Attachment attachment;
        try {
            attachment = c.broker.sessions().attach(identity.clientId(), request.cleanStart(), expiry, c);
        } catch (SessionLimitReached e) {
            throw new ConnectRefused(request.isMqtt5() ? CONNECTION_REFUSED_QUOTA_EXCEEDED
                    : CONNECTION_REFUSED_SERVER_UNAVAILABLE, e.getMessage());
        }
        c.accepted(new ConnectedClient(request.version(), identity, authMethod, attachment.session(),
                authorisedWill(c, request.will(), identity), aliases(request, settings),
                PublishThrottle.of(settings.messagesRate(), settings.bytesRate(), System.nanoTime()),
                request.limits()), new ClientInfo(identity.username(), String.valueOf(c.remoteAddress()),
                request.version().protocolLevel(), keepAlive, request.cleanStart(), System.currentTimeMillis()));
        c.broker.connectedClients().incrementAndGet();
        c.broker.metrics().increment(BrokerCounter.CONNECTIONS_ACCEPTED);

        MqttProperties props = new MqttProperties();
        if (request.isMqtt5()) {
            addConnAckProperties(props, settings, expiry != request.sessionExpiry() ? expiry : -1,
                    keepAlive != request.keepAliveSeconds() ? keepAlive : -1,
                    request.assignedId() ? identity.clientId() : null);
            addAuthentication(props, authMethod, authData);
        }
        c.ctx.write(MqttMessageBuilders.connAck().returnCode(CONNECTION_ACCEPTED)
                .sessionPresent(attachment.sessionPresent()).properties(props).build());
        armKeepAlive(c, keepAlive, settings.keepaliveMultiplier());
        c.outbound.resume();
    }

    /** The session expiry asked for, within {@code max_session_expiry_interval}. */
    private static long grantedExpiry(ConnectRequest request, MqttSettings settings) {
        long max = settings.maxSessionExpiryInterval();
        return max > 0 ? Math.min(request.sessionExpiry(), max) : request.sessionExpiry();
    }

    /** The keepalive asked for; an MQTT 5 client is held to {@code max_keepalive} (Server Keep Alive). */
    private static int grantedKeepAlive(ConnectRequest request, MqttSettings settings) {
        int asked = request.keepAliveSeconds();
        return request.isMqtt5() && asked > settings.maxKeepalive() ? settings.maxKeepalive() : asked;
    }

    private static Will authorisedWill(Connection c, Will will, ClientIdentity identity) {
        return will != null && c.broker.authorizer().mayPublish(identity, will.message().topic()) ? will : null;
    }

    private static TopicAliases aliases(ConnectRequest request, MqttSettings settings) {
        return new TopicAliases(request.isMqtt5() ? settings.topicAliasMaximum() : 0,
                request.limits().topicAliasMaximum());
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

    private static void addAuthentication(MqttProperties props, String authMethod, byte[] authData) {
        if (authMethod == null) {
            return;
        }
        props.add(new MqttProperties.StringProperty(MqttProperties.AUTHENTICATION_METHOD, authMethod));
        if (authData != null) {
            props.add(new MqttProperties.BinaryProperty(MqttProperties.AUTHENTICATION_DATA, authData));
        }
    }

    /** Replaces the CONNECT timeout with the keepalive: silence for keepalive × multiplier closes (MQTT 5 §3.1.2.10). */
    private static void armKeepAlive(Connection c, int keepAliveSeconds, double multiplier) {
        c.readDeadline.change((long) (keepAliveSeconds * 1000L * multiplier));
    }

    /** A DISCONNECT from the client: MQTT 5 may change the session expiry and ask for the will. */
    static void disconnect(Connection c, MqttMessage msg) throws ProtocolViolation {
        if (c.isMqtt5() && msg.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader header) {
            updateSessionExpiry(c, c.client().session(), header.properties());
            if (header.reasonCode() == 0x04) {
                c.closeKeepingWill();
                return;
            }
        }
        c.closeNormally();
    }

    private static void updateSessionExpiry(Connection c, Session session, MqttProperties props)
            throws ProtocolViolation {
        long expiry = InboundProperties.integer(props, MqttProperties.SESSION_EXPIRY_INTERVAL, -1);
        if (expiry > 0 && session.expiryIntervalSeconds() == 0) {
            throw ProtocolViolation.protocolError("Session Expiry Interval set on DISCONNECT after 0 at CONNECT");
        }
        if (expiry >= 0) {
            long cap = c.broker.settings().maxSessionExpiryInterval();
            session.expiryIntervalSeconds(cap > 0 ? Math.min(expiry, cap) : expiry);
        }
    }
}
