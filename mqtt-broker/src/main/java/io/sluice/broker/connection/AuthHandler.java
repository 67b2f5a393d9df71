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

/**
 * MQTT 5 enhanced authentication (§4.12, §3.15): the AUTH packets of an exchange that CONNECT
 * starts by naming an Authentication Method, and of a re-authentication the client starts
 * later (AUTH 0x19). Each step goes to the {@link AuthExchange} the authenticator made; its
 * answer becomes AUTH 0x18 (continue), CONNACK (success, carrying the final data), or a refusal
 * (CONNACK 0x86 before the connection is up, DISCONNECT 0x87 for a failed re-authentication).
 * A re-authentication confirms the client's identity or ends the connection: it never changes
 * who the {@link ConnectedClient} is. Stateless; the exchange in progress lives in the
 * {@link Connection}.
 */
final class AuthHandler {
    /** AUTH reason codes (MQTT 5 §3.15.2.1). */
    private static final byte AUTH_SUCCESS = 0x00;
    private static final byte AUTH_CONTINUE = 0x18;
    private static final byte AUTH_REAUTHENTICATE = 0x19;

    private AuthHandler() {
    }

    /** CONNECT named an Authentication Method: start the exchange, which may complete at once. */
    static void start(Connection c, ConnectRequest request) throws ConnectRefused {
        AuthExchange exchange = c.broker.authenticator().startExchange(request.authMethod(), request.identity());
        if (exchange == null) {
            throw ConnectRefused.unsupportedMethod(request.authMethod());
        }
        c.authExchange = exchange;
        byte[] data = request.authData();
        step(c, exchange.respond(data == null ? new byte[0] : data));
    }

    /** An AUTH packet before CONNACK: the next step of the exchange CONNECT started. */
    static void proceed(Connection c, MqttMessage msg) throws ProtocolViolation, ConnectRefused {
        byte[] data = authData(c.authExchange, msg, AUTH_CONTINUE);
        step(c, c.authExchange.respond(data));
    }

    /** Reads an AUTH packet's data after checking its reason code and method (MQTT 5 §4.12). */
    private static byte[] authData(AuthExchange exchange, MqttMessage msg, byte expectedReason)
            throws ProtocolViolation {
        if (!(msg.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader header)) {
            throw ProtocolViolation.malformed("AUTH without reason code");
        }
        if (header.reasonCode() != expectedReason) {
            throw ProtocolViolation.protocolError(String.format("AUTH with reason code 0x%02X where 0x%02X was due",
                    header.reasonCode(), expectedReason));
        }
        String method = InboundProperties.string(header.properties(), MqttProperties.AUTHENTICATION_METHOD);
        if (!exchange.method().equals(method)) {
            throw ProtocolViolation.protocolError("AUTH with method '" + method + "' during a '"
                    + exchange.method() + "' exchange");
        }
        byte[] data = InboundProperties.binary(header.properties(), MqttProperties.AUTHENTICATION_DATA);
        return data == null ? new byte[0] : data;
    }

    /** Acts on one step of an exchange before CONNACK; success accepts the client as the user it names. */
    private static void step(Connection c, AuthExchange.Step step) throws ConnectRefused {
        String method = c.authExchange.method();
        switch (step.kind()) {
            case CONTINUE -> c.ctx.write(auth(AUTH_CONTINUE, method, step.data()));
            case FAILURE -> throw ConnectRefused.credentials(Authenticator.Verdict.BAD_CREDENTIALS,
                    c.request.isMqtt5(), method + " failed: " + step.reason());
            default -> {
                c.authExchange = null;
                ClientIdentity claimed = c.request.identity();
                ConnectHandler.accept(c, new ClientIdentity(claimed.clientId(), step.username(), claimed.address()),
                        method, step.data());
            }
        }
    }

    /**
     * An AUTH packet after CONNACK: a re-authentication (reason 0x19) or its next step (0x18).
     * Only a client that authenticated with a method may; failure ends the connection (§4.12.1).
     */
    static void reauthenticate(Connection c, MqttMessage msg) throws ProtocolViolation {
        ConnectedClient client = c.client();
        String method = client.authMethod();
        if (method == null) {
            throw ProtocolViolation.protocolError("AUTH without an authentication method in CONNECT");
        }
        boolean starting = c.authExchange == null;
        if (starting) {
            c.authExchange = c.broker.authenticator().startExchange(method, client.identity());
            if (c.authExchange == null) {
                throw ProtocolViolation.protocolError("re-authentication with '" + method + "' is not offered");
            }
        }
        byte[] data = authData(c.authExchange, msg, starting ? AUTH_REAUTHENTICATE : AUTH_CONTINUE);
        AuthExchange.Step step = c.authExchange.respond(data);
        switch (step.kind()) {
            case CONTINUE -> c.ctx.write(auth(AUTH_CONTINUE, method, step.data()));
            case SUCCESS -> reauthenticated(c, client, step);
            default -> reauthenticationFailed(c, step.reason());
        }
    }

    private static void reauthenticated(Connection c, ConnectedClient client, AuthExchange.Step step) {
        c.authExchange = null;
        if (!client.isConfirmedBy(step.username())) {
            reauthenticationFailed(c, "re-authenticated as '" + step.username() + "' instead of '"
                    + client.identity().username() + "'");
            return;
        }
        c.ctx.write(auth(AUTH_SUCCESS, client.authMethod(), step.data()));
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
