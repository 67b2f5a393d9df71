package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttReasonCodes;
import io.sluice.broker.codec.InboundProperties;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.net.auth.AuthExchange;
import io.sluice.net.auth.Authenticator;
import io.sluice.net.auth.ClientIdentity;

import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD;

/**
 * MQTT 5 enhanced authentication (§4.12, §3.15): the AUTH packets of an exchange that CONNECT
 * starts by naming an Authentication Method, and of a re-authentication the client starts
 * later (AUTH 0x19). Each step goes to the {@link AuthExchange} the authenticator made; its
 * answer becomes AUTH 0x18 (continue), CONNACK (success, carrying the final data), or a refusal
 * (CONNACK 0x86 before the connection is up, DISCONNECT 0x87 for a failed re-authentication).
 * Stateless; the exchange in progress lives in the {@link Connection}.
 */
final class AuthHandler {
    /** AUTH reason codes (MQTT 5 §3.15.2.1). */
    private static final byte AUTH_SUCCESS = 0x00;
    private static final byte AUTH_CONTINUE = 0x18;
    private static final byte AUTH_REAUTHENTICATE = 0x19;

    private AuthHandler() {
    }

    /** CONNECT named an Authentication Method: start the exchange; returns true if it completed at once. */
    static boolean start(Connection c, ConnectHandler.Pending pending, String method, byte[] data) {
        AuthExchange exchange = c.broker.authenticator().startExchange(method, c.identity);
        if (exchange == null) {
            c.broker.metrics().increment(BrokerCounter.CONNECTIONS_REFUSED_AUTH);
            c.refuse(CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD,
                    "unsupported authentication method '" + method + "'");
            return false;
        }
        c.pending = pending;
        c.authExchange = exchange;
        return step(c, exchange.respond(data == null ? new byte[0] : data));
    }

    /** An AUTH packet before CONNACK: the next step of the exchange CONNECT started. */
    static boolean proceed(Connection c, MqttMessage msg) throws ProtocolViolation {
        byte[] data = authData(c, msg, AUTH_CONTINUE);
        return step(c, c.authExchange.respond(data));
    }

    /** Reads an AUTH packet's data after checking its reason code and method (MQTT 5 §4.12). */
    private static byte[] authData(Connection c, MqttMessage msg, byte expectedReason) throws ProtocolViolation {
        if (!(msg.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader header)) {
            throw ProtocolViolation.malformed("AUTH without reason code");
        }
        if (header.reasonCode() != expectedReason) {
            throw ProtocolViolation.protocolError(String.format("AUTH with reason code 0x%02X where 0x%02X was due",
                    header.reasonCode(), expectedReason));
        }
        String method = InboundProperties.string(header.properties(), MqttProperties.AUTHENTICATION_METHOD);
        if (!c.authExchange.method().equals(method)) {
            throw ProtocolViolation.protocolError("AUTH with method '" + method + "' during a '"
                    + c.authExchange.method() + "' exchange");
        }
        byte[] data = InboundProperties.binary(header.properties(), MqttProperties.AUTHENTICATION_DATA);
        return data == null ? new byte[0] : data;
    }

    /** Acts on one step of an exchange before CONNACK; returns true once the client is connected. */
    private static boolean step(Connection c, AuthExchange.Step step) {
        String method = c.authExchange.method();
        switch (step.kind()) {
            case CONTINUE -> {
                c.ctx.write(auth(AUTH_CONTINUE, method, step.data()));
                return false;
            }
            case FAILURE -> {
                ConnectHandler.refuseCredentials(c, Authenticator.Verdict.BAD_CREDENTIALS,
                        method + " failed: " + step.reason());
                return false;
            }
            default -> {
                c.identity = new ClientIdentity(c.identity.clientId(), step.username(), c.identity.address());
                c.authExchange = null;
                c.authMethod = method;
                ConnectHandler.Pending pending = c.pending;
                c.pending = null;
                ConnectHandler.accept(c, pending, step.data());
                return true;
            }
        }
    }

    /**
     * An AUTH packet after CONNACK: a re-authentication (reason 0x19) or its next step (0x18).
     * Only a client that authenticated with a method may; failure ends the connection (§4.12.1).
     */
    static void reauthenticate(Connection c, MqttMessage msg) throws ProtocolViolation {
        if (c.authMethod == null) {
            throw ProtocolViolation.protocolError("AUTH without an authentication method in CONNECT");
        }
        byte[] data;
        if (c.authExchange == null) {
            c.authExchange = c.broker.authenticator().startExchange(c.authMethod, c.identity);
            if (c.authExchange == null) {
                throw ProtocolViolation.protocolError("re-authentication with '" + c.authMethod + "' is not offered");
            }
            data = authData(c, msg, AUTH_REAUTHENTICATE);
        } else {
            data = authData(c, msg, AUTH_CONTINUE);
        }
        AuthExchange.Step step = c.authExchange.respond(data);
        switch (step.kind()) {
            case CONTINUE -> c.ctx.write(auth(AUTH_CONTINUE, c.authMethod, step.data()));
            case SUCCESS -> {
                c.authExchange = null;
                if (!step.username().equals(c.identity.username())) {
                    reauthenticationFailed(c, "re-authenticated as '" + step.username() + "' instead of '"
                            + c.identity.username() + "'");
                    return;
                }
                c.ctx.write(auth(AUTH_SUCCESS, c.authMethod, step.data()));
            }
            default -> reauthenticationFailed(c, step.reason());
        }
    }

    private static void reauthenticationFailed(Connection c, String reason) {
        c.authExchange = null;
        c.broker.metrics().increment(BrokerCounter.DISCONNECTS_NOT_AUTHORIZED);
        c.disconnect(MqttReasonCodes.Disconnect.NOT_AUTHORIZED, "re-authentication failed: " + reason);
    }

    private static MqttMessage auth(byte reasonCode, String method, byte[] data) {
        MqttProperties props = new MqttProperties();
        props.add(new MqttProperties.StringProperty(MqttProperties.AUTHENTICATION_METHOD, method));
        if (data != null) {
            props.add(new MqttProperties.BinaryProperty(MqttProperties.AUTHENTICATION_DATA, data));
        }
        return MqttMessageBuilders.auth().reasonCode(reasonCode).properties(props).build();
    }
}
